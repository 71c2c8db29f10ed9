"""Shared code of the book: GPT-2 checkpoint loading, a transparent attention, the ledger, plots."""
