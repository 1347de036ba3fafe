/// `--store`, `--json` and `--color`, accepted before or after the command.
struct GlobalOptions {
    var storePath: String?
    var json = false
    var color: ColorChoice = .auto

    /// Takes the global flags out of `arguments`, leaving the command and its own arguments.
    /// Everything after `--` is left alone.
    static func extract(from arguments: inout [String]) throws -> GlobalOptions {
        var options = GlobalOptions()
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                rest += arguments[index...]
                break
            }
            let (name, inlineValue) = ArgumentList.split(argument)
            func value() throws -> String {
                if let inlineValue { return inlineValue }
                index += 1
                guard index < arguments.count else { throw UsageError("\(name) needs a value") }
                return arguments[index]
            }
            switch name {
            case "--store":
                options.storePath = try value()
                if options.storePath!.isEmpty { throw UsageError("--store needs a path") }
            case "--json":
                guard inlineValue == nil else { throw UsageError("--json takes no value") }
                options.json = true
            case "--color", "--colour":
                let choice = try value()
                guard let parsed = ColorChoice(rawValue: choice) else {
                    throw UsageError("--color must be auto, always or never, not '\(choice)'")
                }
                options.color = parsed
            default:
                rest.append(argument)
            }
            index += 1
        }
        arguments = rest
        return options
    }
}

/// When to colour output.
enum ColorChoice: String {
    case auto, always, never
}
