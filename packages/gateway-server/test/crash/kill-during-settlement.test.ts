// Crash safety: the real `tollgate-gateway` executable, as a child process on one PostgreSQL database,
// is killed with SIGKILL (no graceful stop) at a random moment while several payments settle, and
// restarted on the same database, round after round. The chain (anvil + test USDC) and the facilitator
// belong to this test process and live on across the restarts. In the end every payment attempted is
// `settled` or `failed` in the gateway's table, each settled one has exactly one on-chain transfer (its
// authorization used once, in the recorded transaction), no failed one has any, and replaying the same
// PAYMENT-SIGNATURE to /receive gives its final answer (receipt), identical on every replay. Payers behave
// like real ones: a submission the kill left unanswered is sent again as soon as the gateway is back, so
// every payment is recorded while its authorization is still valid, however slow the machine is.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { x402HTTPClient } from '@x402/core/client';
import { generatePrivateKey } from 'viem/accounts';
import { parseEventLogs, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexEncode } from '@tollgate/core';
import { testDatabaseEngines, testDatabaseUrlVariable } from '@tollgate/core/testing';
import { findFreePort, testUsdcArtifact } from '@tollgate/gateway-server/devchain';
import { devBuild } from '../../../../scripts/dev-build.mjs';
import { call, createRef, createScratchDatabase, registerMerchant, relaxedRateLimits } from '../helpers/gateway';
import { decodeHeader, demoPayer, officialClient, startPaymentStack, type PaymentStack } from '../helpers/payments';

const postgres = (await testDatabaseEngines()).find((engine) => engine.name === 'postgres');

/** Rounds of "start payments, kill -9 at a random moment, restart", and payments started per round. */
const ROUNDS = 10;
const PAYMENTS_PER_ROUND = 4;
/** The kill comes 0 to this many ms after the payments were sent (one settlement takes tens of ms here). */
const MAX_KILL_DELAY_MS = 150;
/** A restarted gateway must answer /healthz within this, or the test fails there. */
const RESTART_DEADLINE_MS = 30_000;
/**
 * The authorizations' lifetime (GATEWAY_MAX_TIMEOUT_SECONDS, the official client signs validBefore = now +
 * this). A payment whose submission died with the killed process is sent again right after the restart,
 * and the gateway takes a new payment only while it has 10 s of validity left (minValiditySeconds); so the
 * lifetime covers those 10 s, a whole restart at its deadline, and 20 s for the resubmission itself. The
 * machine's speed then only matters where the test already bounds it: the restart. (Payments already
 * recorded do not depend on it at all: their replays get the stored outcome whatever the clock says.) It
 * also bounds the test's end: a claim marked before the kill whose settle never left the process is failed
 * once a block past its validBefore exists.
 */
const AUTHORIZATION_SECONDS = 10 + RESTART_DEADLINE_MS / 1000 + 20;
/** A payer sends a payment again at once after a 503 (facilitator or chain unreachable), at most this many times. */
const MAX_UNAVAILABLE_ANSWERS = 20;

interface Attempt {
  round: number;
  path: string;
  header: string;
  payer: Address;
  payTo: Address;
  nonce: Hex;
  amount: bigint;
  /** When the payer signed it (Date.now()). */
  signedAt: number;
}

/** The gateway's answer to a PAYMENT-SIGNATURE: its status, PAYMENT-RESPONSE and body. */
interface Answer {
  status: number;
  paymentResponse: string | null;
  text: string;
  body: unknown;
}

interface PaymentRow {
  payment_id: string;
  state: string;
  payer: string;
  nonce: string;
  pay_to: string;
  tx_hash: string | null;
  receipt: string | null;
}

describe.skipIf(postgres === undefined)(
  `kill -9 of the gateway during settlements${postgres === undefined ? ` (skipped: ${testDatabaseUrlVariable} is not set)` : ''}`,
  () => {
    let stack: PaymentStack;
    let bundle: string;
    let dataDir: string;
    let databaseUrl: string;
    let dropDatabase: () => Promise<void> = async () => undefined;
    let query: <T>(text: string) => Promise<T[]> = async () => [];
    let closeQueries: () => Promise<void> = async () => undefined;
    let gateway: { process: ChildProcess; url: string; output: () => string } | undefined;
    let port: number;
    const env: Record<string, string> = {};

    beforeAll(async () => {
      const { default: pg } = await import('pg');
      const database = await createScratchDatabase(postgres!.connectionString as string, 'tollgate_crash');
      dropDatabase = database.drop;
      databaseUrl = database.url;
      const reader = new pg.Client({ connectionString: databaseUrl });
      await reader.connect();
      query = async <T,>(text: string) => (await reader.query(text)).rows as T[];
      closeQueries = () => reader.end();

      [stack, bundle] = await Promise.all([
        startPaymentStack(),
        devBuild('packages/gateway-server/src/cli.ts', `.tollgate/build/tollgate-gateway-crash-${process.pid}.mjs`),
      ]);
      dataDir = mkdtempSync(join(tmpdir(), 'tollgate-crash-'));
      port = await findFreePort();
      Object.assign(env, {
        PATH: process.env['PATH'] ?? '',
        GATEWAY_PORT: String(port),
        GATEWAY_HOST: '127.0.0.1',
        GATEWAY_DATABASE_URL: databaseUrl,
        TOLLGATE_DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        GATEWAY_SECRET: hexEncode(crypto.getRandomValues(new Uint8Array(32))),
        GATEWAY_SIGNING_KEY: generatePrivateKey(),
        // Short facilitator deadlines keep the claim lease (verify + settle + 30 s) as short as the CLI allows.
        GATEWAY_FACILITATOR_VERIFY_TIMEOUT_MS: '2000',
        GATEWAY_FACILITATOR_SETTLE_TIMEOUT_MS: '3000',
        // Short-lived authorizations (see AUTHORIZATION_SECONDS): a payment whose claim was marked but whose
        // settle never left the killed process can only be failed once its authorization expired unused on chain.
        GATEWAY_MAX_TIMEOUT_SECONDS: String(AUTHORIZATION_SECONDS),
        ...relaxedRateLimits,
        ...stack.gatewayEnv,
      });
    }, 120_000);

    afterAll(async () => {
      const timed = async (what: string, body: () => Promise<unknown>) => {
        const begun = Date.now();
        await body();
        console.info(`[cleanup] ${what}: ${Date.now() - begun} ms`);
      };
      if (gateway) await timed('kill gateway', killGateway);
      await timed('stop stack', async () => stack?.stop());
      await timed('close queries', closeQueries);
      await timed('drop database', dropDatabase);
      if (bundle) rmSync(bundle, { force: true });
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }, 120_000);

    /** How many times the gateway has started, and the payers waiting for its next start. */
    let starts = 0;
    const waitingForStart: Array<() => void> = [];
    /** Resolves once the gateway has started more than `seen` times. */
    const startedAfter = (seen: number) => new Promise<void>((resolve) => (starts > seen ? resolve() : waitingForStart.push(resolve)));

    async function startGateway(): Promise<void> {
      const child = spawn(process.execPath, [bundle], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_000));
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      const url = `http://127.0.0.1:${port}`;
      for (const deadline = Date.now() + RESTART_DEADLINE_MS; ; ) {
        if (child.exitCode !== null) throw new Error(`the gateway exited during start-up (${child.exitCode}): ${output}`);
        const healthy = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.ok, () => false);
        if (healthy) break;
        if (Date.now() > deadline) throw new Error(`the gateway did not become healthy: ${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      gateway = { process: child, url, output: () => output };
      starts += 1;
      for (const wake of waitingForStart.splice(0)) wake();
    }

    async function killGateway(): Promise<void> {
      const child = gateway!.process;
      gateway = undefined;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }

    /** One submission of the payment's PAYMENT-SIGNATURE to the gateway at `url`. */
    async function submit(url: string, attempt: Attempt): Promise<Answer> {
      const response = await call(url, 'GET', attempt.path, { headers: { 'payment-signature': attempt.header } });
      return { status: response.status, paymentResponse: response.headers.get('payment-response'), text: response.text, body: response.body };
    }

    /** One replay of the payment's PAYMENT-SIGNATURE to the running gateway. */
    const replay = (attempt: Attempt) => submit(gateway!.url, attempt);

    /**
     * A payer: submits its PAYMENT-SIGNATURE until the gateway has answered it once. A submission that died
     * with the killed process (no answer) is sent again as soon as the gateway is back: its next start is the
     * event waited for, never a delay. A 503 (facilitator or chain unreachable: "retry") is sent again at
     * once. Any other answer ends it, with the time it came.
     */
    async function pay(attempt: Attempt): Promise<Answer & { at: number }> {
      for (let unavailable = 0; ; ) {
        const seen = starts;
        const target = gateway;
        if (target === undefined) {
          await startedAfter(seen);
          continue;
        }
        let answer: Answer;
        try {
          answer = await submit(target.url, attempt);
        } catch (error) {
          // Only a kill may leave a submission unanswered.
          if (gateway === target) throw error;
          await startedAfter(seen);
          continue;
        }
        if (answer.status === 503 && ++unavailable < MAX_UNAVAILABLE_ANSWERS) continue;
        return { ...answer, at: Date.now() };
      }
    }

    /** Whether an answer says the gateway recorded the payment: 200 settled, 202 settlement_pending, 402 settlement_failed. */
    const recorded = (answer: Answer) =>
      answer.status === 200 || answer.status === 202 || (answer.status === 402 && (answer.body as { error?: { code?: string } } | undefined)?.error?.code === 'settlement_failed');

    it('ends every payment settled or failed, with exactly one transfer per settled one and its receipt on replay', { timeout: 240_000 }, async () => {
      const attempts: Attempt[] = [];
      /** Each payment's payer, until its first answer. */
      const payers = new Map<Attempt, Promise<Answer & { at: number }>>();
      const delays: number[] = [];
      const interrupted: number[] = [];
      const started = Date.now();
      await startGateway();
      for (let round = 0; round < ROUNDS; round++) {
        const merchant = await registerMerchant(gateway!.url, { network: 'local' });
        const ref = await createRef(gateway!.url, merchant, { network: 'local', amount: '10000' });
        expect(ref.status, ref.text).toBe(201);
        const resource = new URL((ref.body as { snapshot: { resource: string } }).snapshot.resource);
        const path = `${resource.pathname}${resource.search}`;
        const negotiation = await call(gateway!.url, 'GET', path);
        expect(negotiation.status).toBe(402);
        const http = new x402HTTPClient(officialClient(stack, demoPayer(stack)));
        const required = http.getPaymentRequiredResponse((name) => negotiation.headers.get(name));
        for (let n = 0; n < PAYMENTS_PER_ROUND; n++) {
          const payload = await http.createPaymentPayload(required);
          const authorization = (payload.payload as { authorization: { from: Address; to: Address; nonce: Hex; value: string } }).authorization;
          attempts.push({
            round, path,
            header: http.encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE'] as string,
            payer: authorization.from, payTo: authorization.to, nonce: authorization.nonce, amount: BigInt(authorization.value),
            signedAt: Date.now(),
          });
        }
        // Sent at once, each by its payer; a submission the kill leaves unanswered is sent again right after
        // the restart (and again after the next one, should a kill interrupt that one too). The rounds do not
        // wait for the answers: a payment whose claim the killed process holds is answered only after the
        // gateway's duplicate wait (verify + settle deadlines + 5 s).
        for (const attempt of attempts.filter((a) => a.round === round)) {
          const paying = pay(attempt);
          paying.catch(() => undefined); // awaited after the rounds
          payers.set(attempt, paying);
        }
        const delay = Math.floor(Math.random() * MAX_KILL_DELAY_MS);
        delays.push(delay);
        await new Promise((r) => setTimeout(r, delay));
        await killGateway();
        // What the kill interrupted: payments of this round not yet final in the database (or not in it).
        const final = await query<{ n: string }>(
          `SELECT count(*) AS n FROM gateway_payments WHERE state IN ('settled', 'failed') AND pay_to = '${merchant.payTo}'`,
        );
        interrupted.push(PAYMENTS_PER_ROUND - Number(final[0]!.n));
        await startGateway();
      }

      const roundsDone = Date.now();
      // Every payer was answered once, and every answer says the payment was recorded: from here on nothing
      // depends on how long the rounds took (a recorded payment's replay gets its stored outcome).
      const firstAnswers = await Promise.all(attempts.map((attempt) => payers.get(attempt)!));
      attempts.forEach((attempt, index) => {
        const answer = firstAnswers[index]!;
        const waited = Math.round((answer.at - attempt.signedAt) / 1000);
        expect(recorded(answer), `payment ${attempt.nonce} of round ${attempt.round}: first answer ${answer.status} ${answer.text}, ${waited} s after it was signed (authorizations last ${AUTHORIZATION_SECONDS} s)`).toBe(true);
      });
      // The payers retry: every PAYMENT-SIGNATURE is replayed until its answer is final. A claim whose
      // holder was killed is taken over once its lease ends; a pending one is finished from the chain.
      const finals = new Map<Attempt, Answer>();
      const deadline = Date.now() + 150_000;
      // A real chain keeps producing blocks; anvil mines only on transactions. "Expired unused" needs a
      // head block past validBefore.
      const mining = setInterval(() => void fetch(stack.anvil.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"evm_mine","params":[]}' }).catch(() => undefined), 1_000);
      const resolving = Promise.all(
        attempts.map(async (attempt) => {
          for (;;) {
            const answer = await replay(attempt);
            if (answer.status === 200 || (answer.status === 402 && (answer.body as { error?: { code?: string } }).error?.code === 'settlement_failed')) {
              finals.set(attempt, answer);
              return;
            }
            if (Date.now() > deadline) {
              const row = await query(`SELECT * FROM gateway_payments WHERE nonce = '${attempt.nonce.toLowerCase()}'`);
              throw new Error(`payment ${attempt.nonce} (round ${attempt.round}, kill delays ${delays.join(',')}) never became final: last ${answer.status} ${answer.text}\nrow ${JSON.stringify(row)}\n${gateway!.output()}`);
            }
            await new Promise((r) => setTimeout(r, 500));
          }
        }),
      );
      await resolving.finally(() => clearInterval(mining));
      console.info(`rounds done after ${Math.round((roundsDone - started) / 1000)} s, all final ${Math.round((Date.now() - roundsDone) / 1000)} s later`);

      const rows = await query<PaymentRow>('SELECT payment_id, state, payer, nonce, pay_to, tx_hash, receipt FROM gateway_payments');
      const logs = await stack.chain.getLogs({ address: stack.setup.usdc.address, fromBlock: 0n, toBlock: 'latest' });
      const used = parseEventLogs({ abi: testUsdcArtifact.abi, logs, eventName: 'AuthorizationUsed' });
      const transfers = parseEventLogs({ abi: testUsdcArtifact.abi, logs, eventName: 'Transfer' });
      const outcomes = { settled: 0, failed: 0 };
      for (const attempt of attempts) {
        const label = `payment ${attempt.nonce} of round ${attempt.round} (kill delays ${delays.join(',')})`;
        const matching = rows.filter((row) => row.payer.toLowerCase() === attempt.payer.toLowerCase() && row.nonce.toLowerCase() === attempt.nonce.toLowerCase());
        expect(matching, label).toHaveLength(1);
        const row = matching[0]!;
        expect(['settled', 'failed'], label).toContain(row.state);
        const usedLogs = used.filter((log) => log.args.authorizer.toLowerCase() === attempt.payer.toLowerCase() && log.args.nonce.toLowerCase() === attempt.nonce.toLowerCase());
        const answer = finals.get(attempt)!;
        if (row.state === 'settled') {
          outcomes.settled += 1;
          // Exactly one execution of the authorization, in the recorded transaction, moving the amount to payTo.
          expect(usedLogs, label).toHaveLength(1);
          expect(usedLogs[0]!.transactionHash, label).toBe(row.tx_hash);
          const moved = transfers.filter((log) => log.transactionHash === row.tx_hash && log.args.to.toLowerCase() === attempt.payTo.toLowerCase());
          expect(moved.map((log) => [log.args.from, log.args.value]), label).toEqual([[attempt.payer, attempt.amount]]);
          expect(row.receipt, label).not.toBeNull();
          expect(answer.status, label).toBe(200);
          expect(decodeHeader<{ success: boolean; transaction: string }>(answer.paymentResponse), label).toMatchObject({ success: true, transaction: row.tx_hash });
        } else {
          outcomes.failed += 1;
          expect(usedLogs, label).toHaveLength(0);
          expect(answer.status, label).toBe(402);
        }
        // The stored answer: every later replay gets the same bytes.
        expect(await replay(attempt), label).toEqual(answer);
      }
      // No transfer to any of the merchants beyond the settled payments (nothing paid twice).
      for (const payTo of new Set(attempts.map((attempt) => attempt.payTo.toLowerCase()))) {
        const settledHere = rows.filter((row) => row.pay_to.toLowerCase() === payTo && row.state === 'settled').length;
        expect(transfers.filter((log) => log.args.to.toLowerCase() === payTo)).toHaveLength(settledHere);
      }
      expect(outcomes.settled + outcomes.failed).toBe(ROUNDS * PAYMENTS_PER_ROUND);
      console.info(`outcomes ${JSON.stringify(outcomes)}`);
      expect(rows).toHaveLength(ROUNDS * PAYMENTS_PER_ROUND);
      // The kills did land during settlements (otherwise this test proved nothing about crashes).
      console.info(`kill delays (ms) ${delays.join(',')}; payments not final at each kill ${interrupted.join(',')}`);
      expect(interrupted.some((count) => count > 0)).toBe(true);
    });
  },
);
