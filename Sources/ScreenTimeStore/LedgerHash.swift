import Crypto

/// The hash that chains the ledger: SHA-256 (swift-crypto) of an entry's line, in lowercase hex.
enum LedgerHash {
    private static let digits = Array("0123456789abcdef".utf8)

    static func hex(_ text: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in SHA256.hash(data: Array(text.utf8)) {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
