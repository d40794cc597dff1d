// Runs publint (strict) on every workspace package after `npm run build`; exits non-zero on any finding.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { packages } from './workspace.mjs';

let failures = 0;
for (const pkg of packages) {
  const { messages } = await publint({ pkgDir: pkg.dir, strict: true, level: 'suggestion' });
  const json = JSON.parse(readFileSync(join(pkg.dir, 'package.json'), 'utf8'));
  for (const message of messages) {
    failures += 1;
    console.error(`${pkg.name}: [${message.type}] ${formatMessage(message, json) ?? message.code}`);
  }
  if (messages.length === 0) console.log(`${pkg.name}: publint ok`);
}
process.exit(failures === 0 ? 0 : 1);
