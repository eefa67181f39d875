import ArgumentParser
import ScreenTimeCore
import ScreenTimeWords

/// Two mistakes made at stctl's command line, said in plain words in place of ArgumentParser's
/// "Unexpected argument": a mistyped command (`stctl stauts`: did you mean `stctl status`?), and
/// the words of a reason without `--reason` in front of them (`stctl ask 20 because I finished`).
/// Asked only when ArgumentParser has refused the arguments, so no command that parses is touched.
enum UsageHint {
    /// The commands that take a reason, each with how many words come before it (the minutes or
    /// points, a request's id, a chore's name) and whether that word is a number.
    static let reasonCommands: [String: (words: Int, number: Bool)] = [
        "stctl ask": (1, true), "stctl adjust": (1, true), "stctl approve": (1, false),
        "stctl deny": (1, false), "stctl chore reject": (1, false),
    ]

    /// The options of those commands that are followed by a value.
    static let optionsWithValue: Set<String> = ["--reason", "--socket", "--user", "--minutes"]

    /// The lines to print for these arguments (as given to stctl, before anything is moved), or
    /// nil when they hold neither mistake.
    static func hint(for arguments: [String]) -> String? {
        var command: ParsableCommand.Type = Stctl.self
        var path = ["stctl"]
        var rest = arguments[...]
        while let word = rest.first, !command.configuration.subcommands.isEmpty {
            if word.hasPrefix("-") || word == "help" { return nil }
            let subcommands = command.configuration.subcommands
            guard let next = subcommands.first(where: { $0._commandName == word || $0.configuration.aliases.contains(word) }) else {
                return unknownCommand(word, path: path, names: subcommands.map { $0._commandName }, after: Array(rest.dropFirst()))
            }
            command = next
            path.append(word)
            rest = rest.dropFirst()
        }
        guard let shape = reasonCommands[path.joined(separator: " ")] else { return nil }
        return strayWords(Array(rest), path: path, shape: shape)
    }

    /// "Error: stctl has no command "stauts"." / "Did you mean: stctl status" / "To see every command: stctl --help"
    static func unknownCommand(_ word: String, path: [String], names: [String], after: [String]) -> String {
        var lines = [tr("Error: {command} has no command \"{word}\".", ["command": path.joined(separator: " "), "word": word])]
        if let near = nearest(word, among: names) {
            lines.append(tr("Did you mean: {command}", ["command": (path + [near] + after.map(quotedIfNeeded)).joined(separator: " ")]))
        }
        lines.append(tr("To see every command: {command}", ["command": (path + ["--help"]).joined(separator: " ")]))
        return lines.joined(separator: "\n") + "\n"
    }

    /// The name a mistyped word was meant to be: the one it starts (at least two letters, and only
    /// one such), else the closest by edit distance as the policy's "did you mean" finds it.
    static func nearest(_ word: String, among names: [String]) -> String? {
        let lower = word.lowercased()
        let started = names.filter { lower.count >= 2 && $0.hasPrefix(lower) }
        if started.count == 1 { return started[0] }
        return closest(to: word, among: names)
    }

    /// Words after `ask 20` (and the like) that are no option: a reason without `--reason`, or a
    /// reason of several words without quotes around them.
    static func strayWords(_ arguments: [String], path: [String], shape: (words: Int, number: Bool)) -> String? {
        var kept: [String] = []          // the arguments without the stray words
        var positional: [Int] = []       // indices in `kept` of the command's own words
        var stray: [String] = []
        var reasonAt: Int? = nil         // index in `kept` of the reason's words
        var i = 0, afterDashes = false
        while i < arguments.count {
            let a = arguments[i]
            i += 1
            if !afterDashes {
                if a == "--" { afterDashes = true; continue }
                if a.hasPrefix("--reason=") { kept += ["--reason", String(a.dropFirst("--reason=".count))]; reasonAt = kept.count - 1; continue }
                if optionsWithValue.contains(a) {
                    kept.append(a)
                    guard i < arguments.count else { return nil }
                    kept.append(arguments[i])
                    if a == "--reason" { reasonAt = kept.count - 1 }
                    i += 1
                    continue
                }
                // An option, or a flag; but `-5` is a number (points taken away).
                if a.hasPrefix("-"), Int64(a) == nil { kept.append(a); continue }
            }
            if positional.count < shape.words {
                positional.append(kept.count)
                kept.append(a)
            } else {
                stray.append(a)
            }
        }
        guard !stray.isEmpty, positional.count == shape.words,
              !shape.number || positional.allSatisfy({ Int64(kept[$0]) != nil }) else { return nil }
        let said = stray.joined(separator: " ")
        let first: String, how: String
        if let at = reasonAt {
            kept[at] += " " + said
            first = tr("Error: \"{words}\" is not understood after the reason.", ["words": said])
            how = tr("A reason of more than one word goes in quotes:")
        } else {
            kept += ["--reason", said]
            first = tr("Error: \"{words}\" is not understood.", ["words": said])
            how = tr("To say why, write --reason and put the words in quotes:")
        }
        // The command's own words first, as a person writes it.
        let own = positional.map { kept[$0] }
        let options = kept.indices.filter { !positional.contains($0) }.map { kept[$0] }
        return [first, how, "  " + (path + own + options).map(quotedIfNeeded).joined(separator: " ")].joined(separator: "\n") + "\n"
    }

    static func quoted(_ text: String) -> String { "\"\(text)\"" }

    /// As a shell reads it back: plain words as they are, the rest in double quotes (single ones
    /// when the text holds what double quotes would not keep).
    static func quotedIfNeeded(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || $0.properties.numericType != nil || "-_./:=@+,%".unicodeScalars.contains($0) }
        if plain { return text }
        if !text.contains(where: { "\"$`\\!".contains($0) }) { return quoted(text) }
        return "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
