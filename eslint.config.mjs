// Typed lint for every TypeScript file, plain lint for the .mjs build scripts and test harness, and
// the layering rules: which folder of src/ may import which (CONTRIBUTING.md, "Layout").
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/**
 * A relative import that reaches into one of these top-level parts of src/. The lint cannot
 * resolve paths, so it matches the folder's name after the `../` steps; folders inside a layer
 * are not named after a layer. Type-only imports count too (no-restricted-imports checks them
 * unless `allowTypeImports` is set).
 */
const LAYERS = {
  core: { regex: "^(\\.\\./)+core(/|$)", message: "src/core/ is host-only logic" },
  acp: { regex: "^(\\.\\./)+acp(/|$)", message: "src/acp/ is the host's ACP client" },
  vscode: { regex: "^(\\.\\./)+vscode(/|$)", message: "src/vscode/ holds the VS Code adapters" },
  webview: { regex: "^(\\.\\./)+webview(/|$)", message: "src/webview/ is the panel's page" },
  demo: { regex: "^(\\.\\./)+demo(/|$)", message: "src/demo/ is a standalone agent" },
  api: { regex: "^(\\.\\./)+api(\\.ts)?$", message: "src/api.ts is the public API, for consumers" },
  extension: { regex: "^(\\.\\./)+extension(\\.ts)?$", message: "src/extension.ts is the wiring at the top" },
};
const NODE_BUILTINS = { regex: "^node:", message: "Node built-ins do not run in the webview" };

/** no-restricted-imports for a layer: never `vscode` (unless allowed), never these parts of src/. */
function layer(files, why, forbidden, { vscodeModule = false, nodeBuiltins = true } = {}) {
  const patterns = forbidden.map((name) => ({ regex: LAYERS[name].regex, message: `${LAYERS[name].message}; ${why}` }));
  if (!nodeBuiltins) patterns.push({ regex: NODE_BUILTINS.regex, message: `${NODE_BUILTINS.message}; ${why}` });
  const paths = vscodeModule ? [] : [{ name: "vscode", message: `No vscode here; ${why} VS Code code lives in src/vscode/.` }];
  return { files, rules: { "no-restricted-imports": ["error", { paths, patterns }] } };
}

export default tseslint.config(
  { ignores: ["node_modules/**", "dist/**", "out/**", ".vscode-test/**", "dist-vsix/**", "test-results/**", "**/*.js"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      eqeqeq: ["error", "smart"],
    },
  },
  // The layers, bottom up. Each file is in exactly one of these blocks (a later block would replace the rule, not add to it).
  layer(["src/shared/**/*.ts"], "src/shared/ runs in the host and in the webview and imports only src/shared/ and npm packages that run in both.", ["core", "acp", "vscode", "webview", "demo", "api", "extension"], { nodeBuiltins: false }),
  layer(["src/core/**/*.ts"], "src/core/ is pure host logic and imports only src/core/ and src/shared/.", ["acp", "vscode", "webview", "demo", "api", "extension"]),
  layer(["src/acp/**/*.ts"], "src/acp/ imports only src/acp/, src/core/ and src/shared/ (types it needs from the API live in core).", ["vscode", "webview", "demo", "api", "extension"]),
  layer(["src/webview/**/*.ts"], "src/webview/ imports only src/webview/ and src/shared/ (and its npm packages).", ["core", "acp", "vscode", "demo", "api", "extension"], { nodeBuiltins: false }),
  layer(["src/vscode/**/*.ts"], "src/vscode/ adapts the lower layers to VS Code and never imports the webview's code or the wiring.", ["webview", "demo", "api", "extension"], { vscodeModule: true }),
  layer(["src/demo/**/*.ts"], "src/demo/ is a standalone ACP agent (its own bundle) and imports only src/demo/, src/core/ and src/shared/.", ["acp", "vscode", "webview", "api", "extension"]),
  layer(["src/api.ts"], "src/api.ts is plain types consumers can copy, from src/core/ and src/shared/ only.", ["acp", "vscode", "webview", "demo", "extension"]),
  layer(["src/extension.ts"], "src/extension.ts wires the host layers together; the webview and the demo agent are bundles of their own.", ["webview", "demo"], { vscodeModule: true }),
  {
    files: ["test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-expressions": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  // Build scripts and the test harness: plain ES modules run by Node, linted without type information.
  {
    files: ["**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: "module",
      globals: {
        process: "readonly", console: "readonly", Buffer: "readonly", URL: "readonly", AbortController: "readonly",
        setTimeout: "readonly", clearTimeout: "readonly", setInterval: "readonly", clearInterval: "readonly", setImmediate: "readonly", fetch: "readonly",
      },
    },
  },
);
