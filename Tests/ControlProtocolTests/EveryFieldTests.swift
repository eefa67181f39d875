import ControlProtocol
import Foundation
import Testing

/// Every field of every request and reply, found by the types themselves rather than listed:
/// `Sample` makes a value of any `Decodable` type with each field filled, each with a value of its
/// own (so two fields swapped would show), or with only the fields on one path. A field added to
/// `ControlRequest` or `ControlReply` is covered here with no edit: the daemon's hand writer and
/// readers must then give what the Codable path gives for it, or these tests fail.
@Suite("Every field of the protocol")
struct EveryFieldTests {
    /// The optional fields a type has, as paths of coding keys ("status", "notices", "summary").
    static func optionalPaths<T: Decodable>(of type: T.Type) throws -> [[String]] {
        let record = Sample.Record()
        _ = try T(from: Sample(codingPath: [], only: nil, record: record))
        return record.optional.sorted { $0.joined(separator: ".") < $1.joined(separator: ".") }
    }

    @Test("the request line stctl writes and the daemon's reader agree with Codable, for every field")
    func requestFields() throws {
        let paths = try Self.optionalPaths(of: ControlRequest.self)
        #expect(paths.count >= 20, "\(paths)")
        for only in [nil] + paths.map(Optional.some) {
            let request = try ControlRequest(from: Sample(codingPath: [], only: only, record: .init()))
            let name = only?.joined(separator: ".") ?? "every field"
            #expect(request.line == ControlProtocol.encode(request), "\(name): \(String(decoding: request.line, as: UTF8.self))")
            #expect(try ControlRequest.read(line: Array(request.line.dropLast())) == request, "\(name): the daemon's reader")
        }
    }

    @Test("the daemon's reply writer and stctl's readers agree with Codable, for every field alone and all together")
    func replyFields() throws {
        let paths = try Self.optionalPaths(of: ControlReply.self)
        #expect(paths.contains(["status", "notices"]) && paths.count >= 30, "\(paths)")
        for only in [nil] + paths.map(Optional.some) {
            let reply = try ControlReply(from: Sample(codingPath: [], only: only, record: .init()))
            let name = only?.joined(separator: ".") ?? "every field"
            #expect(reply.line == ControlProtocol.encode(reply), "\(name): \(String(decoding: reply.line, as: UTF8.self))")
            #expect(try ControlProtocol.decode(ControlReply.self, from: Array(reply.line.dropLast())) == reply, "\(name): the tree reader")
            #expect(try ControlReply.read(line: Array(reply.line.dropLast())) == reply, "\(name): the hand reader")
        }
    }

    /// The sample maker itself: every field filled, values differing, an optional left out when
    /// another path is asked for (else the tests above would prove nothing).
    @Test("the sample maker fills every field, each with its own value, and leaves out what is not asked")
    func sampleMaker() throws {
        let all = try ControlRequest(from: Sample(codingPath: [], only: nil, record: .init()))
        #expect(all.minutes != nil && all.points != nil && all.minutes != all.points && all.reason != all.event)
        let one = try ControlRequest(from: Sample(codingPath: [], only: ["minutes"], record: .init()))
        #expect(one.minutes == all.minutes && one.points == nil && one.reason == nil)
    }
}

/// A `Decoder` that makes values instead of reading them (see `EveryFieldTests`).
struct Sample: Decoder {
    final class Record: @unchecked Sendable {
        var optional: [[String]] = []
        var seen: Set<[String]> = []
    }
    let codingPath: [any CodingKey]
    /// nil: every field; else only the optional fields on this path (and everything under it).
    let only: [String]?
    let record: Record
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The path of keys, array positions left out.
    static func names(_ path: [any CodingKey]) -> [String] { path.compactMap { $0.intValue == nil ? $0.stringValue : nil } }

    func present(_ path: [String]) -> Bool {
        if record.seen.insert(path).inserted { record.optional.append(path) }
        guard let only else { return true }
        return only.starts(with: path) || path.starts(with: only)
    }

    /// A number of the path's own (1 to 99,991), so that no two fields hold the same.
    static func number(_ path: [any CodingKey]) -> Int {
        var h: UInt64 = 1469598103934665603
        for byte in path.map({ $0.intValue.map(String.init) ?? $0.stringValue }).joined(separator: ".").utf8 { h = (h ^ UInt64(byte)) &* 1099511628211 }
        return Int(h % 99_991) + 1
    }

    func make<T: Decodable>(_ type: T.Type, at path: [any CodingKey]) throws -> T {
        let n = Self.number(path)
        switch type {
        case is String.Type:
            // Awkward characters: quotes, a backslash, a line break, a control character, non-ASCII.
            return "\(Self.names(path).joined(separator: "."))-\(n) \"é\" \\ \n\u{1}" as! T
        case is Bool.Type: return (n % 2 == 0) as! T
        case is Int.Type: return n as! T
        case is Int64.Type: return Int64(n) as! T
        case is Int32.Type: return Int32(n) as! T
        case is UInt32.Type: return UInt32(n) as! T
        case is Double.Type: return (Double(n) + 0.5) as! T
        default: break
        }
        if let cases = T.self as? any CaseIterable.Type {
            func pick<C: CaseIterable>(_ c: C.Type) -> Any { let all = Array(c.allCases); return all[n % all.count] }
            return pick(cases) as! T
        }
        return try T(from: Sample(codingPath: path, only: only, record: record))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(sample: self))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(sample: self) }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(sample: self) }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let sample: Sample
        var codingPath: [any CodingKey] { sample.codingPath }
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool { sample.present(Sample.names(codingPath + [key])) }
        func decodeNil(forKey key: Key) throws -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try sample.make(type, at: codingPath + [key]) }
        func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) throws -> KeyedDecodingContainer<N> {
            KeyedDecodingContainer(Keyed<N>(sample: Sample(codingPath: codingPath + [key], only: sample.only, record: sample.record)))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            Unkeyed(sample: Sample(codingPath: codingPath + [key], only: sample.only, record: sample.record))
        }
        func superDecoder() throws -> any Decoder { sample }
        func superDecoder(forKey key: Key) throws -> any Decoder { Sample(codingPath: codingPath + [key], only: sample.only, record: sample.record) }
    }

    /// Two elements in every array.
    struct Unkeyed: UnkeyedDecodingContainer {
        let sample: Sample
        var codingPath: [any CodingKey] { sample.codingPath }
        var count: Int? { 2 }
        var isAtEnd: Bool { currentIndex >= 2 }
        var currentIndex = 0
        struct Index: CodingKey {
            var intValue: Int?
            var stringValue: String { "\(intValue ?? 0)" }
            init(_ i: Int) { intValue = i }
            init?(stringValue: String) { nil }
            init?(intValue: Int) { self.intValue = intValue }
        }
        mutating func decodeNil() throws -> Bool { false }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            defer { currentIndex += 1 }
            return try sample.make(type, at: codingPath + [Index(currentIndex)])
        }
        mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type) throws -> KeyedDecodingContainer<N> {
            defer { currentIndex += 1 }
            return KeyedDecodingContainer(Keyed<N>(sample: Sample(codingPath: codingPath + [Index(currentIndex)], only: sample.only, record: sample.record)))
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            defer { currentIndex += 1 }
            return Unkeyed(sample: Sample(codingPath: codingPath + [Index(currentIndex)], only: sample.only, record: sample.record))
        }
        mutating func superDecoder() throws -> any Decoder { sample }
    }

    struct Single: SingleValueDecodingContainer {
        let sample: Sample
        var codingPath: [any CodingKey] { sample.codingPath }
        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try sample.make(type, at: codingPath) }
    }
}
