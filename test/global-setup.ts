// Replaced by the storage work: prepares shared fixtures once per test run.
export default function setup(): void {}
