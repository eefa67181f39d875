/// A language's rule for its plural forms, as a catalog's header says it in C
/// (`Plural-Forms: nplurals=2; plural=(n != 1);`): which form a number takes. Evaluated here
/// (`MessageCatalog` says why the catalogs are read by hand): the expression's grammar is C's
/// conditional, logical, comparison and arithmetic operators on `n` and whole numbers.
public struct PluralRule: Sendable {
    public let forms: Int
    private let expression: Expression

    indirect enum Expression: Sendable {
        case n
        case number(Int)
        case not(Expression)
        case binary(String, Expression, Expression)
        case choice(Expression, Expression, Expression)

        func value(_ n: Int) -> Int {
            switch self {
            case .n: return n
            case .number(let v): return v
            case .not(let e): return e.value(n) == 0 ? 1 : 0
            case .choice(let c, let a, let b): return c.value(n) != 0 ? a.value(n) : b.value(n)
            case .binary(let op, let a, let b):
                let x = a.value(n)
                if op == "&&" { return x != 0 && b.value(n) != 0 ? 1 : 0 }
                if op == "||" { return x != 0 || b.value(n) != 0 ? 1 : 0 }
                let y = b.value(n)
                switch op {
                case "==": return x == y ? 1 : 0
                case "!=": return x != y ? 1 : 0
                case "<": return x < y ? 1 : 0
                case "<=": return x <= y ? 1 : 0
                case ">": return x > y ? 1 : 0
                case ">=": return x >= y ? 1 : 0
                case "+": return x &+ y
                case "-": return x &- y
                case "*": return x &* y
                // (A catalog's numbers may be anything: no division may trap.)
                case "/": return y == 0 ? 0 : x.dividedReportingOverflow(by: y).partialValue
                case "%": return y == 0 ? 0 : x.remainderReportingOverflow(dividingBy: y).partialValue
                default: return 0
                }
            }
        }
    }

    /// English's: one form for 1, another for every other number.
    public static let english = PluralRule(forms: 2, expression: .binary("!=", .n, .number(1)))

    private init(forms: Int, expression: Expression) {
        self.forms = forms
        self.expression = expression
    }

    /// The rule in a catalog's header (nil: none there, or one that does not parse).
    public init?(header: String) {
        guard let line = header.split(separator: "\n").first(where: { $0.lowercased().hasPrefix("plural-forms:") }) else { return nil }
        var forms: Int? = nil, rule: String? = nil
        for part in line.dropFirst("plural-forms:".count).split(separator: ";") {
            let kv = part.split(separator: "=", maxSplits: 1).map { String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()) }
            guard kv.count == 2 else { continue }
            if kv[0] == "nplurals" { forms = Int(kv[1]) } else if kv[0] == "plural" { rule = kv[1] }
        }
        guard let forms, forms >= 1, let rule, let e = PluralRule.parse(rule) else { return nil }
        self.init(forms: forms, expression: e)
    }

    /// The form (0-based, below `forms`) a number takes.
    public func form(for n: Int) -> Int { min(max(0, expression.value(n)), forms - 1) }

    /// C's precedence, lowest first: ?:, ||, &&, == !=, < <= > >=, + -, * / %, !, ( ). At most
    /// 500 tokens, nested at most 50 deep (a real language's rule has under 100 tokens): a
    /// catalog's rule is read by stctl and the daemon, and must not exhaust their stack.
    static func parse(_ text: String) -> Expression? {
        guard text.count <= 2000 else { return nil }
        var tokens: [String] = []
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if c.isWhitespace { i = text.index(after: i); continue }
            if c.isNumber {
                var j = i
                while j < text.endIndex, text[j].isNumber { j = text.index(after: j) }
                tokens.append(String(text[i..<j])); i = j; continue
            }
            let two = text[i...].prefix(2)
            if ["==", "!=", "<=", ">=", "&&", "||"].contains(String(two)) { tokens.append(String(two)); i = text.index(i, offsetBy: 2); continue }
            guard "n?:()<>!+-*/%".contains(c) else { return nil }
            tokens.append(String(c)); i = text.index(after: i)
        }
        guard tokens.count <= 500 else { return nil }
        var p = 0, depth = 0
        func peek() -> String? { p < tokens.count ? tokens[p] : nil }
        func binary(_ ops: [String], _ next: () -> Expression?) -> Expression? {
            guard var left = next() else { return nil }
            while let op = peek(), ops.contains(op) {
                p += 1
                guard let right = next() else { return nil }
                left = .binary(op, left, right)
            }
            return left
        }
        func primary() -> Expression? {
            guard let t = peek(), depth < 50 else { return nil }
            p += 1
            depth += 1
            defer { depth -= 1 }
            if t == "n" { return .n }
            if let v = Int(t) { return .number(v) }
            if t == "!" { return primary().map { .not($0) } }
            if t == "(" {
                guard let e = conditional(), peek() == ")" else { return nil }
                p += 1
                return e
            }
            return nil
        }
        func product() -> Expression? { binary(["*", "/", "%"], primary) }
        func sum() -> Expression? { binary(["+", "-"], product) }
        func relation() -> Expression? { binary(["<", "<=", ">", ">="], sum) }
        func equality() -> Expression? { binary(["==", "!="], relation) }
        func and() -> Expression? { binary(["&&"], equality) }
        func or() -> Expression? { binary(["||"], and) }
        func conditional() -> Expression? {
            guard let c = or() else { return nil }
            guard peek() == "?" else { return c }
            p += 1
            guard let a = conditional(), peek() == ":" else { return nil }
            p += 1
            guard let b = conditional() else { return nil }
            return .choice(c, a, b)
        }
        guard let e = conditional(), p == tokens.count else { return nil }
        return e
    }
}
