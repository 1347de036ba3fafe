import Foundation

/// A table printed as aligned plain text or as Markdown.
struct TextTable {
    /// How a column's cells line up.
    enum Alignment {
        case left, right
    }

    /// The column titles.
    let header: [String]
    /// One alignment per column.
    let alignments: [Alignment]
    /// The rows, each with as many cells as ``header``.
    private(set) var rows: [[String]] = []

    /// A table with these columns; each is a title and an alignment.
    init(_ columns: [(String, Alignment)]) {
        header = columns.map(\.0)
        alignments = columns.map(\.1)
    }

    /// Adds a row; missing cells are left empty and extra ones dropped.
    mutating func append(_ cells: [String]) {
        rows.append((0..<header.count).map { $0 < cells.count ? cells[$0] : "" })
    }

    /// The table as text: Markdown (`| a | b |` with an alignment row), or columns padded with
    /// spaces and a dashed rule under the header.
    func render(markdown: Bool) -> String {
        if markdown {
            let rule = alignments.map { $0 == .right ? "---:" : "---" }
            return ([header, rule] + rows).map { "| " + $0.map(Self.escapingPipes).joined(separator: " | ") + " |" }
                .joined(separator: "\n") + "\n"
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - cells[column].count)
                return alignments[column] == .right ? padding + cells[column] : cells[column] + padding
            }
            .joined(separator: "  ")
            .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        let rule = widths.map { String(repeating: "-", count: $0) }
        return ([header, rule] + rows).map(line).joined(separator: "\n") + "\n"
    }

    private static func escapingPipes(_ cell: String) -> String {
        cell.replacingOccurrences(of: "|", with: "\\|")
    }
}
