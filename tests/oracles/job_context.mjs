// The contexts and the runner's functions a workflow job's expressions may use, as the oracle
// scripts hand them to GitHub's parser (@actions/expressions): each function with the most
// arguments any workflow value allows it (`failure(needs.a)` in a job's `if:`, where the schema
// gives `failure(0,MAX)`; where each may stand is benchlint's workflow_schema).
export const contexts = ["github", "env", "vars", "job", "jobs", "steps", "runner", "secrets",
  "strategy", "matrix", "needs", "inputs"];
const fn = (name, minArgs, maxArgs) => ({ name, description: "", minArgs, maxArgs, call: () => null });
const MAX = Number.MAX_SAFE_INTEGER;
export const functions = [fn("success", 0, MAX), fn("always", 0, 0), fn("cancelled", 0, 0),
  fn("failure", 0, MAX), fn("hashFiles", 1, 255)];
