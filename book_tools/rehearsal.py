"""Rehearse every chapter on the full-shaped stand-in, so that the full-checkpoint branches run.

On the offline checkpoint (no ``wte``, no MLP weights) the chapters take their
"not verified in this build" branches, and the code that only the full checkpoint reaches
(real tokens through the whole model: L4, Q6, I2, M1, M2, S4 and V3 on token rows) never
runs. The rehearsal runs it: it builds the stand-in of ``book_tools.standin`` (the real
attention tensors plus seeded synthetic ``wte`` and MLP weights, never GPT-2) under
``_build/standin``, generates the chapter notebooks, and executes each one against it,
two at a time, with its own ledger under ``_build/rehearsal/ledger`` (never the published
one; nothing here is ever built into pages).

A chapter passes when it runs to the end. On the stand-in a claim's check may fail; the
check helper records that (``attention_book.checks.check``) and the chapter goes on, and
the rehearsal lists those claims. Anything else fails the chapter: an exception of any
kind (shape, key, type, plotting, a missing import; a ``ClaimCheckFailed`` too, since on
the stand-in a check records instead of raising), a first output that does not say what
the weights are, a claim that needs the full checkpoint recorded as "not verified in this
build" (its full branch did not run although the tensors were there), or a claim
recorded as verified on GPT-2.

Usage: python -m book_tools.rehearsal [chapter.md ...] [--jobs 2] [--out DIR] | --prepare
Exit status 0 when every chapter passes, 1 otherwise, 2 when the stand-in cannot be built.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "_build" / "rehearsal"
PUBLISHED_LEDGER = REPO / "_build" / "ledger"
RECORDED = re.compile(r"\[stand-in for a rehearsal\] (\w+) failed")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Result:
    chapter: str
    ok: bool = False
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)  # why it failed, one line each
    detail: str = ""  # the error's last traceback lines, for the person who fixes it
    recorded: list[str] = field(default_factory=list)  # claims whose checks failed, recorded


# ------------------------------------------------------------ one chapter, in a forked worker


def _text(output: dict) -> str:
    if output.get("output_type") == "stream":
        return output.get("text", "")
    data = output.get("data", {})
    return data.get("text/markdown", "") or data.get("text/plain", "")


KERNEL_STARTS = 3


def _execute(notebook: Path, cwd: Path, report: Path, executed: Path) -> int:
    """Run one notebook with nbclient (the kernel gets this process's environment); write a
    JSON report."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    error, detail = "", ""
    start = time.perf_counter()
    try:
        for attempt in range(KERNEL_STARTS):
            nb = nbformat.read(notebook, as_version=4)
            client = NotebookClient(nb, timeout=900, kernel_name="python3",
                                    resources={"metadata": {"path": str(cwd)}},
                                    # the kernel application's own log, not the cells'
                                    extra_arguments=["--IPKernelApp.log_level=ERROR"])
            try:
                client.execute()
                break
            except RuntimeError as e:
                # Two kernels starting at once can race for a TCP port and one dies before
                # it answers; that is the machine's, not the chapter's: start it again.
                if "kernel_info" not in str(e) or attempt == KERNEL_STARTS - 1:
                    raise
    except CellExecutionError:
        for cell in nb.cells:
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    error = f"{out['ename']}: {ANSI.sub('', out['evalue'])}".strip()
                    tb = ANSI.sub("", "\n".join(out.get("traceback", [])))
                    detail = ("cell:\n" + "\n".join(cell.source.splitlines()[:6])
                              + "\n...\n" + "\n".join(tb.splitlines()[-15:]))
        error = error or "a cell failed"
    except Exception as e:  # a dead kernel, a timeout: still the chapter's failure
        error = f"{type(e).__name__}: {str(e)[:300]}"
    seconds = time.perf_counter() - start
    executed.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, executed)
    texts = [_text(o) for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    texts = [t for t in texts if t.strip()]
    report.write_text(json.dumps({
        "error": error, "detail": detail, "seconds": seconds,
        "first_output": texts[0] if texts else "",
        "recorded": sorted({m for t in texts for m in RECORDED.findall(t)}),
    }))
    return 0


def _child(job: tuple[Path, Path, dict[str, str], Path, Path]) -> None:
    """In a forked worker (nbformat and nbclient already imported): run one notebook with
    exactly the environment ``env``, which the kernel inherits."""
    notebook, cwd, env, report, executed = job
    os.environ.clear()
    os.environ.update(env)
    try:
        _execute(notebook, cwd, report, executed)
    except Exception as e:  # the runner, not the chapter: still reported, never lost
        report.write_text(json.dumps({"error": f"the rehearsal runner failed: "
                                               f"{type(e).__name__}: {e}"[:400],
                                      "detail": "", "seconds": 0.0, "first_output": "",
                                      "recorded": []}))


def _job(notebook: Path, cwd: Path, env: dict[str, str], out: Path) -> tuple:
    report = out / "reports" / f"{notebook.stem}.json"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.unlink(missing_ok=True)
    return notebook, cwd, env, report, out / "executed" / notebook.name


def _judge(job: tuple) -> Result:
    """What one executed chapter shows: its error, its first output, its recorded failures."""
    from attention_book.checkpoint import STANDIN, WEIGHTS_NOTES

    notebook, report = job[0], job[3]
    result = Result(notebook.stem)
    if not report.is_file():
        result.problems.append("the rehearsal runner died before reporting (out of memory?)")
        return result
    data = json.loads(report.read_text())
    result.seconds = data["seconds"]
    result.recorded = data["recorded"]
    result.detail = data["detail"]
    if data["error"]:
        kind = ("a claim's check raised instead of being recorded"
                if data["error"].startswith("ClaimCheckFailed") else "an exception")
        result.problems.append(f"{kind}: {data['error'][:400]}")
    elif WEIGHTS_NOTES[STANDIN] not in data["first_output"]:
        result.problems.append("its first output does not say what the weights are "
                               "(print(load_checkpoint().describe()) first)")
    return result


def _pool(jobs: int):
    import multiprocessing

    import nbclient  # noqa: F401  imported once here, inherited by every forked worker
    import nbformat  # noqa: F401

    return multiprocessing.get_context("fork").Pool(jobs, maxtasksperchild=1)


def run_one(notebook: Path, cwd: Path, env: dict[str, str], out: Path) -> Result:
    """Execute one chapter notebook in a fresh kernel with env; judge what it did."""
    job = _job(notebook, cwd, env, out)
    with _pool(1) as pool:
        pool.map(_child, [job])
    return _judge(job)


# ------------------------------------------------------------ the ledger of the rehearsal


def judge_ledger(results: dict[str, Result], ledger: Path) -> None:
    """Add what the rehearsal ledger shows: recorded failures, and branches that did not run."""
    from attention_book.claims import claim_index
    from attention_book.ledger import FAILED, GPT2_EVIDENCE, NOT_VERIFIED, VERIFIED

    needs = claim_index()
    for file in sorted(ledger.glob("*.json")):
        data = json.loads(file.read_text())
        result = results.get(Path(data["chapter"]).name)
        if result is None:
            continue
        for rec in data["records"]:
            claim, status = rec["claim"], rec["status"]
            if status == FAILED and claim not in result.recorded:
                result.recorded.append(claim)
            if status == NOT_VERIFIED and needs[claim]["needs"] == "full":
                result.problems.append(
                    f"{claim} needs the full checkpoint and was recorded 'not verified in this "
                    f"build' on a full-shaped one: its full-checkpoint branch did not run "
                    f"(reason given: {rec['reason'][:160]})")
            if status == VERIFIED and set(rec["evidence"]) & set(GPT2_EVIDENCE):
                result.problems.append(f"{claim} was recorded as verified on GPT-2 from the "
                                       "stand-in")
    for result in results.values():
        result.recorded.sort()
        result.ok = not result.problems


# ------------------------------------------------------------ the whole rehearsal


def _environment(standin_dir: Path, ledger: Path) -> dict[str, str]:
    from attention_book import checkpoint as ck
    from attention_book.ledger import LEDGER_DIR_VAR

    env = dict(os.environ)
    env.pop(ck.ALLOW_MODIFIED_VAR, None)
    env.update({ck.ENV_VAR: str(standin_dir), ck.REHEARSAL_VAR: "1",
                LEDGER_DIR_VAR: str(ledger), "ATTENTION_BOOK_CLOUD": "0"})
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def prepare(standin_dir: Path | None = None) -> Path:
    """Build the stand-in (kept when current) and its controls in the user cache, as
    ``make control`` does for GPT-2, before any chapter starts: else the first two chapters
    both build them at once. Returns the stand-in's folder."""
    import subprocess

    from attention_book.checkpoint import CheckpointError
    from book_tools import standin

    standin_dir = standin.build(standin_dir)
    env = _environment(standin_dir, OUT / "ledger")  # (no chapter runs: no ledger written)
    done = subprocess.run([sys.executable, "-c", "from attention_book.chapter import subjects; "
                           "subjects()"], env=env, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        raise CheckpointError("the stand-in's controls could not be built: "
                              + done.stderr.strip()[-600:])
    return standin_dir


def rehearse(sources: list[Path], out: Path = OUT, jobs: int = 2,
             standin_dir: Path | None = None) -> list[Result]:
    """Build the stand-in, run the chapters on it, and judge each one."""
    from book_tools.notebooks import generate

    out = out.resolve()
    ledger = out / "ledger"
    if ledger == PUBLISHED_LEDGER.resolve():
        raise ValueError("the rehearsal never writes the published ledger (_build/ledger)")
    standin_dir = prepare(standin_dir)
    for sub in ("ledger", "notebooks", "executed", "reports"):
        shutil.rmtree(out / sub, ignore_errors=True)
    ledger.mkdir(parents=True)
    notebooks = generate(out / "notebooks", sources)
    env = _environment(standin_dir, ledger)
    cwd = {nb: src.resolve().parent for nb, src in zip(notebooks, sources, strict=True)}
    # Chapters that read the ledger (the checklist) run after all the others.
    readers = [nb for nb, src in zip(notebooks, sources, strict=True)
               if "read_records(" in src.read_text()]
    results: dict[str, Result] = {}
    with _pool(jobs) as pool:
        for phase in ([nb for nb in notebooks if nb not in readers], readers):
            batch = [_job(nb, cwd[nb], env, out) for nb in phase]
            for job, _ in zip(batch, pool.imap(_child, batch), strict=True):
                result = results[job[0].stem] = _judge(job)
                _print_line(result, final=False)
    judge_ledger(results, ledger)
    ordered = [results[nb.stem] for nb in notebooks]
    (out / "summary.json").write_text(json.dumps([asdict(r) for r in ordered], indent=1))
    return ordered


def _print_line(r: Result, final: bool = True) -> None:
    if not final:
        print(f"  ran {r.chapter} ({r.seconds:.1f} s)", flush=True)
        return
    status = "ok" if r.ok else "FAILED"
    recorded = (f"; checks failed on the stand-in (recorded): {', '.join(r.recorded)}"
                if r.recorded else "")
    print(f"{status:6s} {r.chapter:32s} {r.seconds:6.1f} s{recorded}", flush=True)
    for p in r.problems:
        print(f"       - {p}")
    if r.problems and r.detail:
        print("         " + r.detail.replace("\n", "\n         "))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sources", nargs="*", type=Path, help="chapters (default: all)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--prepare", action="store_true",
                    help="only build the stand-in and its controls (what a run starts with)")
    args = ap.parse_args(argv)

    from attention_book.checkpoint import CheckpointError
    from book_tools.notebooks import chapters

    if args.prepare:
        try:
            prepare()
        except CheckpointError as e:
            print(f"rehearsal: the stand-in cannot be built: {e}", file=sys.stderr)
            return 2
        return 0
    sources = args.sources or chapters()
    start = time.perf_counter()
    print(f"rehearsal: {len(sources)} chapters on the full-shaped stand-in, "
          f"{args.jobs} at a time", flush=True)
    try:
        results = rehearse(sources, args.out, args.jobs)
    except CheckpointError as e:
        print(f"rehearsal: the stand-in cannot be built: {e}", file=sys.stderr)
        return 2
    print()
    for r in results:
        _print_line(r)
    failed = sum(not r.ok for r in results)
    print(f"\nrehearsal: {len(results) - failed} passed, {failed} failed "
          f"in {time.perf_counter() - start:.0f} s (executed notebooks and ledger: "
          f"{args.out})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
