import type { PaymentContexts } from '../payments/payment-context';
import type { GatewayStore } from '../store/gateway-store';

/**
 * `store`, with ref revocation and payTo retirement also dropping the negotiation's cached statuses, so
 * this instance's next 402 sees them at once. Every method delegates explicitly to `store` (called on
 * `store` itself, so a class-based store with `#private` fields keeps working), and a method added to
 * `GatewayStore` fails to compile here until it is delegated too.
 *
 * @param store - The store the services write through.
 * @param contexts - The negotiation's context resolver, whose cache is told.
 * @returns The wrapped store.
 *
 * @example
 * ```ts
 * import { createPayments, createRefService, statusForgettingStore } from '@tollgate/core';
 * const payments = createPayments(deps);
 * const refs = createRefService({ ...deps, store: statusForgettingStore(deps.store, payments.contexts) });
 * ```
 */
export function statusForgettingStore(store: GatewayStore, contexts: Pick<PaymentContexts, 'forgetRef' | 'forgetPayTo'>): GatewayStore {
  return {
    insertChallenge: (challenge) => store.insertChallenge(challenge),
    getChallenge: (id) => store.getChallenge(id),
    deleteExpiredChallenges: (before) => store.deleteExpiredChallenges(before),
    register: (request) => store.register(request),
    findApiKey: (secretHash) => store.findApiKey(secretHash),
    getMerchant: (merchantId) => store.getMerchant(merchantId),
    rotateCredential: (params) => store.rotateCredential(params),
    revokePreviousCredential: (params) => store.revokePreviousCredential(params),
    getPayTo: (address) => store.getPayTo(address),
    async retirePayTo(params) {
      const retired = await store.retirePayTo(params);
      contexts.forgetPayTo(params.address);
      return retired;
    },
    createRef: (ref) => store.createRef(ref),
    getRef: (id) => store.getRef(id),
    listRefs: (query) => store.listRefs(query),
    async revokeRef(params) {
      const revoked = await store.revokeRef(params);
      contexts.forgetRef(params.refId);
      return revoked;
    },
    getPaymentTarget: (refId) => store.getPaymentTarget(refId),
    getPaymentStatus: (refId) => store.getPaymentStatus(refId),
    claimPayment: (claim) => store.claimPayment(claim),
    findPayment: (lookup) => store.findPayment(lookup),
    getPayment: (paymentId) => store.getPayment(paymentId),
    startSettle: (params) => store.startSettle(params),
    releasePayment: (params) => store.releasePayment(params),
    listAbandonedPayments: (params) => store.listAbandonedPayments(params),
    takeOverPayment: (params) => store.takeOverPayment(params),
    listStrandedPayments: (params) => store.listStrandedPayments(params),
    renewRecovery: (params) => store.renewRecovery(params),
    markPaymentPending: (params) => store.markPaymentPending(params),
    completePayment: (completion) => store.completePayment(completion),
    failPayment: (failure) => store.failPayment(failure),
  };
}
