"""Build and QA tooling of the book: never imported by a chapter."""
