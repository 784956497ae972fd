// GitHub Actions expressions parsed by GitHub's own library (@actions/expressions), for the
// differential tests of benchlint/actions.py. Usage: node github_parse.mjs PACKAGE_DIR with a
// JSON list of expression texts on stdin; prints a JSON list of {"ok": true} or {"error": "..."}.
// The contexts and the runner's functions are a workflow job's.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { contexts, functions } from "./job_context.mjs";

const { Lexer, Parser } = await import(pathToFileURL(`${process.argv[2]}/dist/index.js`).href);


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
