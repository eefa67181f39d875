import ScreenTimeCore

// not shown: the decoding errors' debug descriptions, worded as Foundation's JSONDecoder words them, are diagnostics
// for a developer; every reader drops them (try?) and says "not understood" in its own words

/// Reads a `Decodable` from the project's own JSON reader's tree (`JSONLineReader`), as
/// Foundation's `JSONDecoder` with `.convertFromSnakeCase` would: the same keys, the same types.
/// Written by hand for a measured reason: Foundation's decoder (and its encoder for the request)
/// were a fifth of the time `stctl status` takes from exec to exit (docs/benchmarks.md), much of
/// it the runtime looking up protocol conformances for each type's first cast.
struct JSONTreeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let fields) = value else { throw mismatch([String: Int].self, value, codingPath) }
        var byName: [String: JSONValue] = [:]
        for (name, v) in fields { byName[Self.camelCase(name)] = v }
        return KeyedDecodingContainer(Keyed(fields: byName, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([Int].self, value, codingPath) }
        return Unkeyed(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(value: value, codingPath: codingPath) }

    /// "request_id" → "requestId": Foundation's `.convertFromSnakeCase`, underscores at either end kept.
    static func camelCase(_ key: String) -> String {
        guard key.contains("_") else { return key }
        let leading = key.prefix { $0 == "_" }
        let trailing = key.reversed().prefix { $0 == "_" }
        guard leading.count < key.count else { return key }
        let middle = key.dropFirst(leading.count).dropLast(trailing.count)
        let words = middle.split(separator: "_")
        guard words.count > 1 else { return key }
        let joined = words[0].lowercased() + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }.joined()
        return String(leading) + joined + String(trailing)
    }

    /// A key that names an array element, for error messages.
    struct Index: CodingKey {
        var intValue: Int?
        var stringValue: String { "Index \(intValue ?? 0)" }
        init(_ i: Int) { intValue = i }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let fields: [String: JSONValue]
        let codingPath: [any CodingKey]
        var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

        private func single(_ key: Key) throws -> Single {
            guard let v = fields[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
            }
            return Single(value: v, codingPath: codingPath + [key])
        }

        func decodeNil(forKey key: Key) throws -> Bool { try single(key).decodeNil() }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try single(key).decode(type) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try single(key).decode(type) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try single(key).decode(type) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try single(key).decode(type) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try single(key).decode(type) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try single(key).decode(type) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try single(key).decode(type) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try single(key).decode(type) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try single(key).decode(type) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try single(key).decode(type) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try single(key).decode(type) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try single(key).decode(type) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try single(key).decode(type) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try single(key).decode(type) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try single(key).decode(type) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            let s = try single(key)
            return try JSONTreeDecoder(value: s.value, codingPath: s.codingPath).container(keyedBy: type)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            let s = try single(key)
            return try JSONTreeDecoder(value: s.value, codingPath: s.codingPath).unkeyedContainer()
        }
        func superDecoder() throws -> any Decoder { JSONTreeDecoder(value: .object(fields.map { ($0.key, $0.value) }), codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder {
            let s = try single(key)
            return JSONTreeDecoder(value: s.value, codingPath: s.codingPath)
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let items: [JSONValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        init(items: [JSONValue], codingPath: [any CodingKey]) {
            self.items = items
            self.codingPath = codingPath
        }

        private mutating func next<T>(_ type: T.Type) throws -> Single {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [Index(currentIndex)], debugDescription: "Unkeyed container is at end."))
            }
            defer { currentIndex += 1 }
            return Single(value: items[currentIndex], codingPath: codingPath + [Index(currentIndex)])
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else { throw DecodingError.valueNotFound(Never?.self, .init(codingPath: codingPath, debugDescription: "Unkeyed container is at end.")) }
            if items[currentIndex] == .null { currentIndex += 1; return true }
            return false
        }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decode(type) }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let s = try next([String: Int].self)
            return try JSONTreeDecoder(value: s.value, codingPath: s.codingPath).container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let s = try next([Int].self)
            return try JSONTreeDecoder(value: s.value, codingPath: s.codingPath).unkeyedContainer()
        }
        mutating func superDecoder() throws -> any Decoder {
            let s = try next(JSONValue.self)
            return JSONTreeDecoder(value: s.value, codingPath: s.codingPath)
        }
    }

    struct Single: SingleValueDecodingContainer {
        let value: JSONValue
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { value == .null }

        func decode(_ type: Bool.Type) throws -> Bool {
            guard case .bool(let b) = value else { throw mismatch(type, value, codingPath) }
            return b
        }
        func decode(_ type: String.Type) throws -> String {
            guard case .string(let s) = value else { throw mismatch(type, value, codingPath) }
            return s
        }
        func decode(_ type: Double.Type) throws -> Double {
            guard case .number(let n) = value else { throw mismatch(type, value, codingPath) }
            return n.double
        }
        func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
        func decode(_ type: Int.Type) throws -> Int { try integer(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: JSONTreeDecoder(value: value, codingPath: codingPath)) }

        private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
            guard case .number(let n) = value else { throw mismatch(type, value, codingPath) }
            guard let whole = n.int64, let v = T(exactly: whole) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Number \(n.double) is not representable in Swift."))
            }
            return v
        }
    }
}

private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    DecodingError.typeMismatch(type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(value.typeName) instead."))
}
