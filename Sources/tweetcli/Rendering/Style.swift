/// ANSI styles, applied only when colour is on.
struct Style {
    let enabled: Bool

    func bold(_ text: String) -> String { apply("1", text) }
    func dim(_ text: String) -> String { apply("2", text) }
    func accent(_ text: String) -> String { apply("36", text) }
    func like(_ text: String) -> String { apply("31", text) }
    func error(_ text: String) -> String { apply("1;31", text) }

    private func apply(_ code: String, _ text: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
