/// A secret nobody can guess: 32 random bytes from the kernel (getrandom, through the standard
/// library's generator), in 64 hex digits. The daemon's parent sessions and the parents' page's
/// cookies and CSRF tokens are made of these.
public enum RandomToken {
    public static func hex() -> String {
        var random = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let digits = String(random.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}
