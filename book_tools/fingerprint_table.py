"""Write the package's fingerprint table (``attention_book/gpt2_small_fingerprints.json``).

Official records are copied from the shared record of OpenAI's release. The thirds of every
``c_attn`` (W_Q, W_K, W_V and their biases) are hashed from the offline tensors
(``GPT2_CHECKPOINT``), after each whole tensor is checked against the shared sha256, so that
an error can say which third of a modified c_attn differs.

Usage (maintainers): python -m book_tools.fingerprint_table SHARED_FINGERPRINTS_JSON [OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from attention_book import checkpoint as ck

ABOUT = ("GPT-2 small (124M) as OpenAI released it, tensor by tensor, Hugging Face key "
         "names and [in, out] layout, from the project's shared record: sha256 of the "
         "float32 little-endian bytes in C order; for the MLP weight matrices the git "
         "blob sha1 of the float32 big-endian bytes; for wte the crc32 of its float32 "
         "big-endian bytes and their count. 'thirds': sha256 of W_Q, W_K, W_V (or "
         "their biases) within c_attn.")


def table_from(shared: Path) -> dict:
    """The table's content, from the shared record and the located offline tensors."""
    record = json.loads(shared.read_text())
    path = ck.locate()[0]
    tensors = ck.read_tensors(path)
    entries = {}
    for name, info in record["tensors"].items():
        entry = {k: v for k, v in info.items() if k != "row0_first10_4dp"}
        if name in tensors and name.endswith(("c_attn.weight", "c_attn.bias")):
            t = tensors[name]
            if ck.sha256_f32(t) != info["sha256"]:
                raise ValueError(f"{path}: {name} is not the official tensor")
            entry["thirds"] = {label: ck.sha256_f32(third)
                               for label, third in zip(ck.thirds_labels(name), ck.thirds(t),
                                                       strict=True)}
        entries[name] = entry
    return {"about": ABOUT, "official_file": record["official_file"], "tensors": entries}


def write_table(shared: Path, table: Path = ck.TABLE_FILE) -> dict:
    """Write the table from the shared record to ``table``; returns its content."""
    data = table_from(shared)
    table.write_text(json.dumps(data, indent=1) + "\n")
    return data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("shared", type=Path, help="the shared fingerprints.json")
    ap.add_argument("out", nargs="?", type=Path, default=ck.TABLE_FILE)
    args = ap.parse_args(argv)
    write_table(args.shared, args.out)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
