"""Every chapter run on the full-shaped stand-in (``book_tools.standin``), so that the branches
only the full checkpoint reaches run before they meet real weights: executed as the build
executes them (``book_tools.execute``), in a cache and with a ledger of their own. A chapter
passes when every cell passes (a check that fails on the stand-in is recorded and listed),
its first output says what the weights are, and its ledger records no claim that needs the
full checkpoint as "not verified in this build" and none as verified on GPT-2.

Usage: python -m book_tools.rehearsal [--prepare]   (--prepare: build the stand-in only)
Exit status 0 when every chapter passes, 1 otherwise, 2 when the stand-in cannot be built.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "_build" / "rehearsal"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Result:
    chapter: str
    problems: list[str] = field(default_factory=list)  # why it failed, one line each
    recorded: list[str] = field(default_factory=list)  # claims whose checks failed, recorded

    @property
    def ok(self) -> bool:
        return not self.problems


def environment(standin_dir: Path, ledger: Path) -> dict[str, str]:
    from attention_book import checkpoint as ck
    from attention_book.ledger import LEDGER_DIR_VAR

    env = {k: v for k, v in os.environ.items() if k != ck.ALLOW_MODIFIED_VAR}
    return {"OPENBLAS_NUM_THREADS": "1"} | env | {
        ck.ENV_VAR: str(standin_dir), ck.REHEARSAL_VAR: "1", LEDGER_DIR_VAR: str(ledger),
        "ATTENTION_BOOK_CLOUD": "0"}


def prepare(standin_dir: Path | None = None) -> Path:
    """Build the stand-in (kept when current) and its controls in the user cache before any
    chapter starts (else the first two chapters both build them at once)."""
    from attention_book.checkpoint import CheckpointError
    from book_tools import standin

    standin_dir = standin.build(standin_dir)
    done = subprocess.run([sys.executable, "-c", "from attention_book.chapter import subjects;"
                           " subjects()"], env=environment(standin_dir, OUT / "ledger"),
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise CheckpointError("the stand-in's controls could not be built: "
                              + done.stderr.strip()[-600:])
    return standin_dir


def run_chapters(sources: list[Path], env: dict[str, str], cache: Path) -> None:
    """Execute the chapters with env, two at a time, into a jupyter-cache project."""
    subprocess.run([sys.executable, "-m", "book_tools.execute", cache, *sources], env=env,
                   check=True)


def first_output(nb) -> str:
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            text = out.get("text") or data.get("text/markdown") or data.get("text/plain", "")
            if text.strip():
                return text
    return ""


def judge(sources: list[Path], cache_dir: Path, ledger: Path) -> dict[str, Result]:
    """What each chapter's run shows: its error, its first output, its ledger."""
    from jupyter_cache import get_cache

    from attention_book.checkpoint import STANDIN, WEIGHTS_NOTES
    from attention_book.claims import claim_index
    from attention_book.ledger import FAILED, GPT2_EVIDENCE, NOT_VERIFIED, VERIFIED, read_records

    cache, results = get_cache(cache_dir), {src.stem: Result(src.stem) for src in sources}
    for src in sources:
        record, result = cache.get_project_record(str(src)), results[src.stem]
        if record.traceback:
            tail = "\n         ".join(ANSI.sub("", record.traceback).splitlines()[-15:])
            result.problems.append(f"a cell failed:\n         {tail}")
            continue
        _, ran = cache.merge_match_into_notebook(cache.get_project_notebook(str(src)).nb)
        if WEIGHTS_NOTES[STANDIN] not in first_output(ran):
            result.problems.append("its first output does not say what the weights are "
                                   "(print(load_checkpoint().describe()) first)")
    needs = claim_index()
    for rec in read_records(ledger).values():
        if (result := results.get(Path(rec.chapter).name)) is None:
            continue
        if rec.status == FAILED:
            result.recorded.append(rec.claim)
        if rec.status == NOT_VERIFIED and needs[rec.claim]["needs"] == "full":
            result.problems.append(
                f"{rec.claim} needs the full checkpoint and was recorded 'not verified in this "
                f"build' on a full-shaped one: its full-checkpoint branch did not run "
                f"(reason given: {rec.reason[:160]})")
        if rec.status == VERIFIED and set(rec.evidence) & set(GPT2_EVIDENCE):
            result.problems.append(f"{rec.claim} was recorded as verified on GPT-2 from the "
                                   "stand-in")
    return results


def rehearse(sources: list[Path], out: Path = OUT) -> dict[str, Result]:
    """Build the stand-in, run the chapters on it, and judge each one."""
    import shutil

    if (out / "ledger").resolve() == (REPO / "_build" / "ledger").resolve():
        raise ValueError("the rehearsal never writes the published ledger (_build/ledger)")
    standin_dir = prepare()
    for sub in ("ledger", "cache"):
        shutil.rmtree(out / sub, ignore_errors=True)
    (out / "ledger").mkdir(parents=True)
    sources = [s.resolve() for s in sources]
    run_chapters(sources, environment(standin_dir, out / "ledger"), out / "cache")
    return judge(sources, out / "cache", out / "ledger")


def main(argv: list[str] | None = None) -> int:
    from attention_book.checkpoint import CheckpointError
    from book_tools.notebooks import chapters

    try:
        if "--prepare" in (sys.argv[1:] if argv is None else argv):
            prepare()
            return 0
        results = rehearse(chapters())
    except CheckpointError as e:
        print(f"rehearsal: the stand-in cannot be built: {e}", file=sys.stderr)
        return 2
    for r in results.values():
        recorded = f"; checks failed on the stand-in (recorded): {', '.join(r.recorded)}" \
            if r.recorded else ""
        print(f"{'ok' if r.ok else 'FAILED':6s} {r.chapter:32s}{recorded}")
        print("".join(f"       - {p}\n" for p in r.problems), end="")
    failed = sum(not r.ok for r in results.values())
    print(f"rehearsal on the stand-in: {len(results) - failed} passed, {failed} failed "
          f"(executions and ledger: {OUT})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
