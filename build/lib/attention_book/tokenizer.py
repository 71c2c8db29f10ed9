"""The GPT-2 byte-pair tokenizer, built by tiktoken from OpenAI's original files."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import tiktoken
from tiktoken.load import data_gym_to_mergeable_bpe_ranks, read_file_cached
from tiktoken_ext.openai_public import r50k_pat_str

from .checkpoint import CheckpointError

# The sha256 values tiktoken checks for its own "gpt2" encoding.
ENCODER_JSON_SHA256 = "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783"
VOCAB_BPE_SHA256 = "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5"
END_OF_TEXT = 50256
# encoder.json's entries that are not BPE tokens (tiktoken drops the same two)
SPECIAL_TOKENS = ("<|endoftext|>", "<|startoftext|>")


def _files_beside(folder: Path) -> tuple[Path, Path, bool] | None:
    """(merges, vocab, is_original) for OpenAI's or Hugging Face's file names."""
    if (folder / "vocab.bpe").is_file() and (folder / "encoder.json").is_file():
        return folder / "vocab.bpe", folder / "encoder.json", True
    if (folder / "merges.txt").is_file() and (folder / "vocab.json").is_file():
        return folder / "merges.txt", folder / "vocab.json", False
    return None


def _data_gym_bytes() -> dict[str, int]:
    """The byte each character of GPT-2's vocabulary files stands for: printable
    bytes other than space stand for themselves, the other 68 for chr(256 + n)."""
    printable = [b for b in range(2**8) if chr(b).isprintable() and chr(b) != " "]
    others = [b for b in range(2**8) if b not in printable]
    return ({chr(b): b for b in printable}
            | {chr(2**8 + n): b for n, b in enumerate(others)})


def pinned_ranks(merges: Path, vocab: Path) -> dict[bytes, int]:
    """The BPE ranks of OpenAI's original files, read from encoder.json alone.

    tiktoken builds them from the merge list in vocab.bpe and asserts they equal
    encoder.json's; with both files pinned by the sha256 tiktoken checks for its own
    "gpt2" encoding that equality is a fact about two fixed files
    (``tests/test_tokenizer.py`` asserts it), so parsing 50,000 merges again buys
    nothing. A file that is not the original fails its hash with ValueError.
    """
    read_file_cached(str(merges), VOCAB_BPE_SHA256)  # the hash check only
    encoder = json.loads(read_file_cached(str(vocab), ENCODER_JSON_SHA256))
    # each character to the character of its byte, then latin-1: one byte per character
    as_bytes = str.maketrans({c: chr(b) for c, b in _data_gym_bytes().items()})
    return {token.translate(as_bytes).encode("latin-1"): rank
            for token, rank in encoder.items() if token not in SPECIAL_TOKENS}


@functools.lru_cache(maxsize=4)
def load_tokenizer(folder: Path | None = None) -> tiktoken.Encoding:
    """GPT-2's BPE from the tokenizer files in ``folder``, else tiktoken's own download."""
    files = _files_beside(folder) if folder is not None else None
    if files is None:
        try:
            return tiktoken.get_encoding("gpt2")
        except Exception as e:  # tiktoken raises requests' errors when offline
            raise CheckpointError(
                "No GPT-2 tokenizer files (encoder.json and vocab.bpe, or vocab.json and "
                f"merges.txt) beside the checkpoint in {folder}, and tiktoken could not "
                f"download its own ({type(e).__name__}). Put the files beside "
                "model.safetensors or run once with network access.") from None
    merges, vocab, original = files
    try:
        if original:
            ranks = pinned_ranks(merges, vocab)
        else:
            ranks = data_gym_to_mergeable_bpe_ranks(str(merges), str(vocab))
    except ValueError as e:
        raise CheckpointError(f"The tokenizer files in {folder} are not GPT-2's ({e}). "
                              "Replace them with OpenAI's encoder.json and vocab.bpe.") from None
    return tiktoken.Encoding("gpt2", pat_str=r50k_pat_str, mergeable_ranks=ranks,
                             special_tokens={"<|endoftext|>": END_OF_TEXT})
