/// Metrics written in Prometheus's text exposition format (version 0.0.4): for each family a `# HELP` and a
/// `# TYPE` line, then one sample per label set.
struct PrometheusText {
    /// What is written so far.
    private(set) var text = ""

    /// A family of gauges with no labels and one value.
    mutating func gauge(_ name: String, _ help: String, _ value: Double) {
        family(name, help, [([], value)])
    }

    /// A family of gauges, one sample per label set (none: only the help and type lines).
    mutating func family(_ name: String, _ help: String, _ samples: [(labels: [(String, String)], value: Double)], type: String = "gauge") {
        text += "# HELP \(name) \(Self.escapingHelp(help))\n# TYPE \(name) \(type)\n"
        for sample in samples {
            text += name
            if !sample.labels.isEmpty {
                text += "{" + sample.labels.map { "\($0.0)=\"\(Self.escapingLabel($0.1))\"" }.joined(separator: ",") + "}"
            }
            text += " " + Self.number(sample.value) + "\n"
        }
    }

    /// A value as the format writes it: whole numbers without a fraction, `NaN`, `+Inf`, `-Inf`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// A label value with `\`, `"` and line feeds escaped.
    static func escapingLabel(_ value: String) -> String {
        escaping(value, quotes: true)
    }

    /// Help text with `\` and line feeds escaped.
    static func escapingHelp(_ value: String) -> String {
        escaping(value, quotes: false)
    }

    /// By scalar, so that a line feed inside a CR LF cluster is escaped too.
    private static func escaping(_ value: String, quotes: Bool) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": escaped.append(contentsOf: "\\\\".unicodeScalars)
            case "\"" where quotes: escaped.append(contentsOf: "\\\"".unicodeScalars)
            case "\n": escaped.append(contentsOf: "\\n".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}
