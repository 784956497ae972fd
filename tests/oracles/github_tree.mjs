// GitHub Actions expressions parsed by GitHub's own library (@actions/expressions), each tree
// written as an S-expression, for the differential test of benchlint/actions.py's `tree`.
// Usage: node github_tree.mjs PACKAGE_DIR with a JSON list of expression texts on stdin;
// prints a JSON list of S-expressions, or null where the library rejects the text.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { contexts, functions } from "./job_context.mjs";

const library = await import(pathToFileURL(`${process.argv[2]}/dist/index.js`).href);
const ast = await import(pathToFileURL(`${process.argv[2]}/dist/ast.js`).href);
const { Lexer, Parser } = library;


function written(node) {
  if (node instanceof ast.Literal) {
    if (node.literal.constructor.name === "StringData")
      return `(str ${JSON.stringify(node.literal.value)})`;
    if (typeof node.literal.value === "number") return "num";
    const value = node.literal.value;
    return `(lit ${value === undefined || value === null ? "null" : String(value)})`;
  }
  if (node instanceof ast.Unary) return `(${node.operator.lexeme} ${written(node.expr)})`;
  if (node instanceof ast.Binary)
    return `(${node.operator.lexeme} ${written(node.left)} ${written(node.right)})`;
  if (node instanceof ast.Logical)
    return `(${node.operator.lexeme} ${node.args.map(written).join(" ")})`;
  if (node instanceof ast.Grouping) return `(group ${written(node.group)})`;
  if (node instanceof ast.ContextAccess) return `(ctx ${node.name.lexeme.toLowerCase()})`;
  if (node instanceof ast.IndexAccess) return `(idx ${written(node.expr)} ${written(node.index)})`;
  if (node instanceof ast.Star) return "*";
  if (node instanceof ast.FunctionCall)
    return `(call ${node.functionName.lexeme.toLowerCase()}${node.args.map((a) => " " + written(a)).join("")})`;
  throw new Error(`unknown node ${node.constructor.name}`);
}

const texts = JSON.parse(readFileSync(0, "utf8"));
const results = texts.map((text) => {
  try {
    const lexed = new Lexer(text).lex();
    return written(new Parser(lexed.tokens, contexts, functions).parse());
  } catch (error) {
    return null;
  }
});
process.stdout.write(JSON.stringify(results));
