// GitHub Actions expressions parsed by GitHub's own library (@actions/expressions), for the
// differential tests of benchlint/actions.py. Usage: node github_parse.mjs PACKAGE_DIR with a
// JSON list of expression texts on stdin; prints a JSON list of {"ok": true} or {"error": "..."}.
// The contexts and the runner's functions are a workflow job's.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const { Lexer, Parser } = await import(pathToFileURL(`${process.argv[2]}/dist/index.js`).href);

const contexts = ["github", "env", "vars", "job", "jobs", "steps", "runner", "secrets",
  "strategy", "matrix", "needs", "inputs"];
const fn = (name, minArgs, maxArgs) => ({ name, description: "", minArgs, maxArgs, call: () => null });
// (each with the most arguments any workflow value allows it: `failure(needs.a)` in a job's
// `if:`, where the schema gives `failure(0,MAX)`; where each may stand is benchlint's
// workflow_schema)
const MAX = Number.MAX_SAFE_INTEGER;
const functions = [fn("success", 0, MAX), fn("always", 0, 0), fn("cancelled", 0, 0),
  fn("failure", 0, MAX), fn("hashFiles", 1, 255)];

const texts = JSON.parse(readFileSync(0, "utf8"));
const results = texts.map((text) => {
  try {
    const lexed = new Lexer(text).lex();
    new Parser(lexed.tokens, contexts, functions).parse();
    return { ok: true };
  } catch (error) {
    return { error: String(error) };
  }
});
process.stdout.write(JSON.stringify(results));
