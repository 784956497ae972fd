// GitHub Actions workflows read by GitHub's own workflow parser (@actions/workflow-parser, the
// parser of its language services), for the differential tests of benchlint/workflow_schema.py.
// Usage: node --import ./json_import.mjs github_workflow.mjs PACKAGE_DIR with a JSON list of
// workflow texts on stdin; prints, for each, the list of the errors the parser and its converter
// report ("(Line: L, Col: C): message").
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const { parseWorkflow, convertWorkflowTemplate, NoOperationTraceWriter } = await import(
  pathToFileURL(`${process.argv[2]}/dist/index.js`).href
);

const texts = JSON.parse(readFileSync(0, "utf8"));
const results = [];
for (const content of texts) {
  const parsed = parseWorkflow({ name: "w.yml", content }, new NoOperationTraceWriter());
  if (parsed.value !== undefined) {
    await convertWorkflowTemplate(parsed.context, parsed.value);
  }
  const errors = parsed.context.errors.getErrors().map((e) => e.message.replace(/^w\.yml /, ""));
  results.push([...new Set(errors)]);
}
process.stdout.write(JSON.stringify(results));
