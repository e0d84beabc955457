// kura.js: the browser SDK (docs/web-sdk.md). Placeholder until the SDK lands; it exports nothing yet.
export {};
