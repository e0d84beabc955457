// Type declarations of kura.js. Placeholder until the SDK lands.
export {};
