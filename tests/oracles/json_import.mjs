// The workflow parser's package imports its schema (a .json file) with no import attribute,
// which Node.js refuses: this hook gives such imports `type: "json"`.
import { register } from "node:module";

register(
  "data:text/javascript," +
    encodeURIComponent(`export async function load(url, context, next) {
      if (url.endsWith(".json")) {
        return next(url, { ...context, importAttributes: { type: "json" } });
      }
      return next(url, context);
    }`),
  import.meta.url,
);
