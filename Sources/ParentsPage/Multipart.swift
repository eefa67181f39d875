/// A `multipart/form-data` body (RFC 7578), as a form with a file sends it: each part's name and
/// its bytes. Only what the policy upload needs: no nested parts, no transfer encodings.
public enum Multipart {
    /// The boundary named by `multipart/form-data; boundary=…` (quoted or not).
    public static func boundary(contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for param in contentType.split(separator: ";").dropFirst() {
            let kv = param.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, kv[0].trimmingWhitespace().lowercased() == "boundary" else { continue }
            var value = kv[1].trimmingWhitespace()
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            return value.isEmpty || value.count > 70 ? nil : String(value)
        }
        return nil
    }

    /// Each part's name and content; a name given twice keeps its first part.
    public static func parts(_ body: [UInt8], boundary: String) -> [String: [UInt8]] {
        let delimiter = Array("--\(boundary)".utf8)
        var out: [String: [UInt8]] = [:]
        var starts: [Int] = []
        var i = 0
        while let at = find(delimiter, in: body, from: i) {
            // A delimiter starts the body or a line.
            if at == 0 || (at >= 2 && body[at - 2] == 13 && body[at - 1] == 10) { starts.append(at) }
            i = at + delimiter.count
        }
        for (k, start) in starts.enumerated() where k + 1 < starts.count {
            var from = start + delimiter.count
            guard from + 2 <= body.count, body[from] == 13, body[from + 1] == 10 else { continue }
            from += 2
            let to = starts[k + 1] - 2           // the CRLF before the next delimiter
            guard to >= from, let split = find([13, 10, 13, 10], in: body, from: from), split <= to else { continue }
            let headers = String(decoding: body[from..<split], as: UTF8.self)
            guard let name = partName(headers), out[name] == nil else { continue }
            out[name] = Array(body[(split + 4)..<max(split + 4, to)])
        }
        return out
    }

    /// `name="…"` of the part's Content-Disposition.
    static func partName(_ headers: String) -> String? {
        for line in headers.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
            guard let r = line.firstRange(of: "; name=\"") else { return nil }
            let rest = line[r.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { return nil }
            return String(rest[..<end])
        }
        return nil
    }

    static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count, from <= hay.count - needle.count else { return nil }
        var i = from
        while i <= hay.count - needle.count {
            if hay[i] == needle[0] && hay[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
