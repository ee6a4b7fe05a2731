/// Where a hub is: a command to start (talked to over its standard input and output), a Unix socket, or a TCP port.
///
/// Parsed from the `--hub SPEC` syntax: `unix:PATH`, `tcp:HOST:PORT` (`tcp:[::1]:7000` for IPv6), or anything else
/// as a command line split on spaces, with `'...'` and `"..."` quoting.
public enum HubEndpoint: Sendable, Hashable, CustomStringConvertible {
    case command([String])
    case unix(path: String)
    case tcp(host: String, port: Int)

    /// Why a `--hub` value could not be parsed.
    public struct ParseError: Error, Sendable, Hashable {
        /// What is wrong with the value and what to write instead.
        public var message: String
    }

    /// - Parameter listening: parsing an address to listen on, where port 0 lets the system choose one.
    public init(parsing spec: String, listening: Bool = false) throws(ParseError) {
        if let problem = Self.urlProblem(spec) { throw ParseError(message: problem) }
        if spec.hasPrefix("unix:") {
            let path = String(spec.dropFirst(5))
            guard !path.isEmpty else { throw ParseError(message: "--hub unix:PATH needs a socket path after 'unix:'") }
            self = .unix(path: path)
            return
        }
        if spec.hasPrefix("tcp:") {
            let rest = spec.dropFirst(4)
            guard let colon = rest.lastIndex(of: ":") else {
                throw ParseError(message: "--hub tcp:HOST:PORT needs a port after the host, as in tcp:127.0.0.1:7000")
            }
            var host = String(rest[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty else { throw ParseError(message: "--hub tcp:HOST:PORT needs a host, as in tcp:127.0.0.1:7000") }
            let lowest = listening ? 0 : 1
            guard let port = Int(rest[rest.index(after: colon)...]), (lowest...65535).contains(port) else {
                throw ParseError(message: "--hub tcp:HOST:PORT needs a port in \(lowest)...65535, as in tcp:127.0.0.1:7000")
            }
            self = .tcp(host: host, port: port)
            return
        }
        let words = try Self.split(spec)
        guard !words.isEmpty else {
            throw ParseError(message: "--hub needs a command to start, unix:PATH or tcp:HOST:PORT")
        }
        self = .command(words)
    }

    /// What to write instead of a URL (`tcp://HOST:PORT`, `unix:///PATH`, `ws://...`), which is none of the three
    /// forms; nil for anything else.
    static func urlProblem(_ spec: String) -> String? {
        guard let scheme = spec.firstRange(of: "://"), !spec[..<scheme.lowerBound].contains(" ") else { return nil }
        let name = spec[..<scheme.lowerBound].lowercased()
        let rest = spec[scheme.upperBound...]
        switch name {
        case "tcp": return "--hub \(spec) is a URL; write tcp:HOST:PORT without \"//\", as in tcp:\(rest)"
        case "unix": return "--hub \(spec) is a URL; write unix:PATH without \"//\", as in unix:\(rest.hasPrefix("/") ? "" : "/")\(rest)"
        default:
            return "--hub \(spec) is a URL, which a hub is not reached by: give a command that starts a hub speaking "
                + "docs/hub-protocol.md on its standard input and output, unix:PATH or tcp:HOST:PORT (to reach the Open Home "
                + "Foundation Matter Server's ws:// address, start the bridge in Examples/hubs/matter-server-bridge)"
        }
    }

    /// Splits a command line on spaces, honouring single and double quotes.
    static func split(_ line: String) throws(ParseError) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        guard quote == nil else { throw ParseError(message: "--hub has an unclosed quote: \(line)") }
        if inWord { words.append(word) }
        return words
    }

    public var description: String {
        switch self {
        case .command(let words): words.joined(separator: " ")
        case .unix(let path): "unix:\(path)"
        case .tcp(let host, let port): host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        }
    }
}
