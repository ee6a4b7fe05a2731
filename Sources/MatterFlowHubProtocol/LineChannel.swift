import MatterFlow

/// What a ``LineChannel`` delivers: a line, a framing failure, or its end.
public enum LineEvent: Sendable {
    /// One complete line, without its newline.
    case line(String)
    /// The peer broke the framing (a line over ``LineChannelLimits/maximumLineBytes`` or not UTF-8); the channel
    /// delivers nothing more after it but ``closed(_:)``.
    case malformed(String)
    /// The peer closed the connection, exited, or the channel failed; nothing is delivered after this.
    case closed(String)
}

/// Why a line could not be sent.
public struct LineChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why, in words a message can quote.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// The limits every line transport enforces.
public enum LineChannelLimits {
    /// The longest line either side may send: 1 MiB, newline excluded.
    public static let maximumLineBytes = 1 << 20
}

/// A bidirectional transport of text lines: the hub protocol's framing (one JSON-RPC message per line).
///
/// Channels deliver events in order and one at a time. With a ``sharedClock`` (in-process channels whose two ends
/// run on one virtual clock), every line in flight holds that clock (a ``ClockHold``) from ``send(_:)`` until the
/// receiver's callback for it returns, so virtual time cannot pass between a request and the work it starts;
/// receivers that go on working after the callback start that work with the clock's primitives (a task with
/// ``WorkflowClock/task(_:)``, a waiting caller woken through its ``ClockWaker``) before it returns.
public protocol LineChannel: Sendable {
    /// Starts delivering what arrives to `receive`. Called once.
    func start(_ receive: @escaping @Sendable (LineEvent) -> Void)
    /// Sends one line (a newline is added). Safe from any task or thread.
    func send(_ line: String) throws(LineChannelError)
    /// Closes the channel at once; the peer sees its end. Lines not yet written are dropped; later sends fail.
    func close()
    /// Closes the channel once the lines already sent have been written (within a bounded time); the peer then sees
    /// its end. Later sends fail.
    func closeAfterSending()
    /// Returns once every line sent has been written (or can no longer be) and the channel is closed: what a process
    /// waits for after ``closeAfterSending()`` before it exits, so that its last lines reach the peer.
    func waitUntilSent() async
    /// The virtual clock both ends share, for in-process channels; nil for real transports.
    var sharedClock: (any WorkflowClock)? { get }
}

extension LineChannel {
    /// Real transports share no clock.
    public var sharedClock: (any WorkflowClock)? { nil }

    /// Channels that write every line before ``send(_:)`` returns close at once: a channel that wraps another
    /// must forward this and ``waitUntilSent()``.
    public func closeAfterSending() { close() }

    /// Channels that write every line before ``send(_:)`` returns have nothing to wait for.
    public func waitUntilSent() async {}
}

/// Quoting a peer's line in an error message without leaking a secret.
enum LineQuote {
    /// `line N from the hub, B bytes: QUOTE`, as errors about a line name it.
    static func numbered(_ line: String, number: Int) -> String {
        "line \(number) from the hub, \(line.utf8.count) bytes: \(masked(line))"
    }

    /// The most of a line the quote reads.
    static let readLimit = 4096

    /// At most `limit` characters of `line`, with every run of 8 or more hex digits (decimal ones counted across single
    /// dashes or spaces between groups, as a manual code is printed) and every `MT:` payload (`mt:` too) replaced by `<redacted>`
    /// (onboarding payloads, manual codes, ePSKc keys, datasets and keys all match).
    ///
    /// A quote cut short ends between words and never inside a `"..."` string: a secret (a passphrase with spaces,
    /// say) is then shown whole, where redaction by value recognises it, or not at all, never its first part.
    static func masked(_ line: String, limit: Int = 80) -> String {
        var output = ""
        var run = ""
        var runIsDecimal = true
        var payload = false
        func flush() {
            output += run.count(where: \.isHexDigit) >= 8 ? "<redacted>" : run
            run = ""
            runIsDecimal = true
        }
        let read = Array(line.prefix(readLimit))
        let readAll = line.dropFirst(readLimit).isEmpty
        var index = 0
        while index < read.count {
            let character = read[index]
            if payload {
                if character == "\"" || character == " " || character == "," || character == "}" {
                    payload = false
                    output += "<redacted>"
                } else {
                    index += 1
                    continue
                }
            }
            // `MT:` as QR codes print it, or `mt:` typed in lower case; never the end of a word (`fmt:`, `stmt:`).
            if character == "M" && read.indices.contains(index + 1) && read[index + 1] == "T"
                || character == "m" && read.indices.contains(index + 1) && read[index + 1] == "t",
                index + 2 < read.count, read[index + 2] == ":", index == 0 || !(read[index - 1].isLetter || read[index - 1].isNumber)
            {
                flush()
                payload = true
                index += 3
                continue
            }
            if character.isHexDigit {
                run.append(character)
                runIsDecimal = runIsDecimal && character.isASCII && character.isWholeNumber
            } else if character == "-" || character == " ", !run.isEmpty, runIsDecimal, index + 1 < read.count, read[index + 1].isASCII, read[index + 1].isWholeNumber {
                // A manual pairing code is printed in groups of decimal digits: `1044-604-4879`, `1044 604 4879`.
                run.append(character)
            } else {
                flush()
                output.append(character)
            }
            index += 1
        }
        if payload { output += "<redacted>" }
        flush()
        let characters = Array(output)
        guard characters.count > limit || !readAll else { return output }
        return String(characters[..<cut(characters, at: min(limit, characters.count))]) + "…"
    }

    /// Where a quote of `characters` cut at `limit` ends: before the word the limit falls in (or the last word,
    /// when the line itself was cut) and before the opening quote of a string it falls in.
    private static func cut(_ characters: [Character], at limit: Int) -> Int {
        var end = limit
        if end == characters.count || !isBoundary(characters[end]) {
            while end > 0, !isBoundary(characters[end - 1]) { end -= 1 }
        }
        var opening: Int?
        var escaped = false
        for index in 0..<end {
            let character = characters[index]
            if escaped {
                escaped = false
            } else if character == "\\", opening != nil {
                escaped = true
            } else if character == "\"" {
                opening = opening == nil ? index : nil
            }
        }
        return opening ?? end
    }

    /// Whether a character separates words of a line: white space or JSON's punctuation.
    private static func isBoundary(_ character: Character) -> Bool {
        character.isWhitespace || "\"{}[],:".contains(character)
    }
}
