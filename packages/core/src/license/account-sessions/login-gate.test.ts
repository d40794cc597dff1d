import { describe, expect, it } from 'vitest';
import { assertLoginGateRule, defaultLoginGateRules, loginGateAddress, loginGateCharge, loginGateLockSeconds, loginGateRefund, type LoginGateDecision, type LoginGateState } from './login-gate';

const rule = defaultLoginGateRules.account;

/** Charges `count` attempts at `now` and returns the last decision. */
function chargeTimes(count: number, now: number, start?: LoginGateState) {
  let state = start;
  let decision: LoginGateDecision | undefined;
  for (let n = 0; n < count; n += 1) {
    decision = loginGateCharge(state, now, rule);
    state = decision.state;
  }
  if (decision === undefined) throw new Error('charge at least once');
  return decision;
}

describe('loginGateCharge (the reference the SQL mirrors)', () => {
  it('lets the first 5 attempts through; the 5th starts a 30 s lock that refuses the 6th with the seconds left', () => {
    const fifth = chargeTimes(5, 1000);
    expect(fifth).toEqual({ allowed: true, state: { failures: 5, lastChargeAt: 1000, lockedUntil: 1030 } });
    const fourth = chargeTimes(4, 1000);
    expect(fourth.state.lockedUntil).toBe(0);
    const sixth = loginGateCharge(fifth.state, 1010, rule);
    expect(sixth).toEqual({ allowed: false, retryAfterSeconds: 20, state: fifth.state });
  });

  it('doubles the lock with each further failure up to 15 minutes', () => {
    expect([5, 6, 7, 8, 9, 10, 11, 50, 10_000].map((failures) => loginGateLockSeconds(failures, rule))).toEqual([30, 60, 120, 240, 480, 900, 900, 900, 900]);
    expect(loginGateLockSeconds(4, rule)).toBe(0);
    let state = chargeTimes(5, 0).state;
    state = loginGateCharge(state, state.lockedUntil, rule).state; // the lock just ended: the 6th is let through
    expect(state).toEqual({ failures: 6, lastChargeAt: 30, lockedUntil: 90 });
  });

  it('forgets the count an hour after the last charge', () => {
    const four = chargeTimes(4, 0).state;
    expect(loginGateCharge(four, 3599, rule).state.failures).toBe(5);
    expect(loginGateCharge(four, 3600, rule).state).toEqual({ failures: 1, lastChargeAt: 3600, lockedUntil: 0 });
  });

  it('refunds one charge and lifts the lock once the count is below the threshold', () => {
    const fifth = chargeTimes(5, 0).state;
    expect(loginGateRefund(fifth, rule)).toEqual({ failures: 4, lastChargeAt: 0, lockedUntil: 0 });
    const sixth = loginGateCharge(fifth, 30, rule).state;
    expect(loginGateRefund(sixth, rule)).toEqual({ failures: 5, lastChargeAt: 30, lockedUntil: sixth.lockedUntil });
    expect(loginGateRefund({ failures: 0, lastChargeAt: 0, lockedUntil: 0 }, rule).failures).toBe(0);
  });

  it('refuses rules SQL could overflow on or that make no sense', () => {
    expect(() => assertLoginGateRule(rule)).not.toThrow();
    expect(() => assertLoginGateRule({ ...rule, threshold: 0 })).toThrow(/threshold/);
    expect(() => assertLoginGateRule({ ...rule, baseLockSeconds: 1.5 })).toThrow(/baseLockSeconds/);
    expect(() => assertLoginGateRule({ ...rule, maxLockSeconds: 10 })).toThrow(/at least baseLockSeconds/);
    expect(() => assertLoginGateRule({ ...rule, forgetAfterSeconds: 10 ** 9 })).toThrow(/forgetAfterSeconds/);
  });
});

describe('loginGateAddress', () => {
  it('counts IPv4 addresses alone and IPv6 addresses by their /64', () => {
    expect(loginGateAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(loginGateAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(loginGateAddress('2001:DB8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(loginGateAddress('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(loginGateAddress('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(loginGateAddress('::1')).toBe('0:0:0:0::/64');
    expect(loginGateAddress('::')).toBe('0:0:0:0::/64');
  });

  it('gives undefined for anything that is not a plain address', () => {
    for (const address of [undefined, '', 'localhost', '256.1.1.1', '1.2.3', '01.2.3.4', 'fe80::1%eth0', '1::2::3', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', '12345::', 'x'.repeat(100)]) {
      expect(loginGateAddress(address), String(address)).toBeUndefined();
    }
  });
});
