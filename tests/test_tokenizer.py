import shutil

import pytest

from attention_book.checkpoint import CheckpointError
from attention_book.tokenizer import load_tokenizer

KNOWN = [464, 3797, 3332, 319, 262, 2603, 13]  # "The cat sat on the mat." in GPT-2's BPE


def test_original_files_give_known_ids(checkpoint):
    tok = load_tokenizer(checkpoint.path.parent)
    assert tok.encode("The cat sat on the mat.") == KNOWN
    assert tok.decode(KNOWN) == "The cat sat on the mat."
    assert tok.n_vocab == 50257


def test_hugging_face_file_names(checkpoint, tmp_path):
    shutil.copy(checkpoint.path.parent / "encoder.json", tmp_path / "vocab.json")
    shutil.copy(checkpoint.path.parent / "vocab.bpe", tmp_path / "merges.txt")
    assert load_tokenizer(tmp_path).encode("The cat sat on the mat.") == KNOWN


def test_foreign_tokenizer_files_refused(checkpoint, tmp_path):
    shutil.copy(checkpoint.path.parent / "encoder.json", tmp_path / "encoder.json")
    (tmp_path / "vocab.bpe").write_text("#version: 0.2\na b\n")
    with pytest.raises(CheckpointError, match="not GPT-2's"):
        load_tokenizer(tmp_path)


def test_pinned_ranks_are_the_ranks_tiktoken_builds_from_the_merges(checkpoint):
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks

    from attention_book.tokenizer import pinned_ranks

    folder = checkpoint.path.parent
    built = data_gym_to_mergeable_bpe_ranks(str(folder / "vocab.bpe"),
                                            str(folder / "encoder.json"))
    assert pinned_ranks(folder / "vocab.bpe", folder / "encoder.json") == built
    assert len(built) == 50256
