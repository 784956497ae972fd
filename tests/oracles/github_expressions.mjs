// GitHub Actions expressions evaluated by GitHub's own library (@actions/expressions), for the
// differential tests of benchlint/expressions.py. Usage: node github_expressions.mjs PACKAGE_DIR
// with a JSON list of {"expression": "...", "inputs": {"name": value}} on stdin; prints a JSON
// list of {"value": "..."} (the result as a string, as an `env:` value gets it) or {"error": "..."}.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const { Lexer, Parser, Evaluator, data } = await import(
  pathToFileURL(`${process.argv[2]}/dist/index.js`).href
);

function toData(value) {
  if (value === null) return new data.Null();
  if (typeof value === "boolean") return new data.BooleanData(value);
  if (typeof value === "number") return new data.NumberData(value);
  return new data.StringData(value);
}

const cases = JSON.parse(readFileSync(0, "utf8"));
const results = cases.map(({ expression, inputs }) => {
  try {
    const lexed = new Lexer(expression).lex();
    const parsed = new Parser(lexed.tokens, ["inputs"], []).parse();
    const given = new data.Dictionary();
    for (const [name, value] of Object.entries(inputs)) given.add(name, toData(value));
    const context = new data.Dictionary({ key: "inputs", value: given });
    return { value: new Evaluator(parsed, context).evaluate().coerceString() };
  } catch (error) {
    return { error: String(error) };
  }
});
process.stdout.write(JSON.stringify(results));
