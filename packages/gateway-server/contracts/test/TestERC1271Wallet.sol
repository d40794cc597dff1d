// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/**
 * @title TestERC1271Wallet
 * @notice A minimal contract wallet for tests: it approves an EIP-1271 signature when it is the owner's
 * 65-byte ECDSA signature over the digest followed by a one-byte wallet tag (0x01). The tag makes the
 * signature 66 bytes long, so x402 facilitators route it to the `bytes signature` overload of
 * `transferWithAuthorization`, and a bare EOA signature of the owner is not accepted for the wallet.
 */
contract TestERC1271Wallet {
    bytes4 private constant MAGIC_VALUE = 0x1626ba7e;
    bytes4 private constant REJECTED = 0xffffffff;

    address public immutable owner;

    constructor(address walletOwner) {
        owner = walletOwner;
    }

    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 66 || signature[65] != 0x01) return REJECTED;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        address recovered = ecrecover(digest, v, r, s);
        return recovered != address(0) && recovered == owner ? MAGIC_VALUE : REJECTED;
    }
}
