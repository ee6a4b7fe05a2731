@testable import MatterFlowStore
import Testing

/// What messages and logs show of a connection string: never its password, in whatever form libpq takes it.
@Suite("connection strings in messages")
struct ConninfoRedactionTests {
    @Test("a password in a URI's user part or query, or in a key=value pair (quoted, escaped, spaced around =), is redacted; the rest stays as written")
    func passwordsRedacted() {
        let cases: [(String, String)] = [
            ("postgres://mf:s3cret@db.example/mf", "postgres://mf:<redacted>@db.example/mf"),
            ("postgresql://db/mf?user=mf&password=s3cret&sslmode=require", "postgresql://db/mf?user=mf&password=<redacted>&sslmode=require"),
            ("postgres://mf:a%40b@db/mf?password=x#frag", "postgres://mf:<redacted>@db/mf?password=<redacted>"),
            // libpq reads '#' and '?' as part of the password; a '/' it cannot take, but it was meant as one.
            ("postgresql://mf:Hash#Pass1@%2Ftmp%2Fpg/mf", "postgresql://mf:<redacted>@%2Ftmp%2Fpg/mf"),
            ("postgres://mf:Que?ry1@db/mf?sslmode=require", "postgres://mf:<redacted>@db/mf?sslmode=require"),
            ("postgres://mf:Leak/Me123@db/mf", "postgres://mf:<redacted>@db/mf"),
            ("host=db PASSWORD=LeakMe12345 Password=Other9", "host=db PASSWORD=<redacted> Password=<redacted>"),
            ("host='unterminated password=SuperSecret123", "host=<redacted>"),
            ("postgres://db/mf?PassWord=s3cret", "postgres://db/mf?PassWord=<redacted>"),
            ("postgres://mf@db/mf", "postgres://mf@db/mf"),
            ("host=/run/pg dbname=mf password=s3cret", "host=/run/pg dbname=mf password=<redacted>"),
            ("host=db password = 'two words' user=mf", "host=db password = <redacted> user=mf"),
            (#"password='it\'s secret' dbname=mf"#, "password=<redacted> dbname=mf"),
            (#"password=back\ slash dbname=mf"#, "password=<redacted> dbname=mf"),
            ("host=/tmp/pg port=5432 dbname=postgres", "host=/tmp/pg port=5432 dbname=postgres"),
            ("host=db sslkey=/k sslpassword=phrase", "host=db sslkey=/k sslpassword=<redacted>"),
            ("postgres://db/mf?pass%77ord=s3cret&sslpassword=phrase", "postgres://db/mf?pass%77ord=<redacted>&sslpassword=<redacted>"),
        ]
        for (conninfo, shown) in cases {
            #expect(PostgresConnection.redacting(conninfo) == shown, "\(conninfo)")
        }
    }

    @Test("a setting libpq does not know (a misspelt password key) has its value hidden; a malformed string is the string's fault, never retried")
    func unknownSettingsAreHidden() throws {
        #expect(PostgresConnection.redacting("host=db passwd=hunter22 pwd=hunter33 user=mf") == "host=db passwd=<redacted> pwd=<redacted> user=mf")
        #expect(PostgresConnection.redacting("postgres://mf@db/mf?passwrd=hunter22&sslmode=require") == "postgres://mf@db/mf?passwrd=<redacted>&sslmode=require")
        // Hidden where the string is shown; taken out of every message only when it looks meant as a password.
        #expect(ConninfoRedaction.scrubbing("ssl is true, passwd was hunter22", about: "host=db ssl=true passwd=hunter22") == "ssl is true, passwd was <redacted>")
        try #require((try? LibPQ.loaded.get()) != nil, "libpq cannot be opened here")
        for (conninfo, hint) in [
            ("host=127.0.0.1 port=1 passwd=hunter22", #"invalid connection option "passwd" (did you mean "password"?)"#),
            ("postgres://u@127.0.0.1:1/db?passwrd=hunter22", #"invalid URI query parameter: "passwrd" (did you mean "password"?)"#),
            ("postgres://u@127.0.0.1:abc/db", #"invalid integer value "abc" for connection option "port""#),
        ] {
            do {
                _ = try PostgresConnection(conninfo)
                Issue.record("connected with \(conninfo)")
            } catch {
                #expect(error.code == .malformedConninfo, "\(error)")
                #expect(!error.isTransient, "a worker does not retry it")
                #expect(error.message.contains(hint), "\(error.message)")
                #expect(!error.message.contains("hunter22"), "\(error.message)")
                let store = StoreError.from(error, doing: "connecting")
                #expect(store.code == .invalidStore && !store.message.contains("check that PostgreSQL is running"), "\(store)")
            }
        }
    }

    @Test("text that is not a connection string comes back without a password, and without a trap")
    func oddText() {
        for text in ["", "=", "password", "password=", "password='unterminated", "a=b=c", "  ", "\\", "'"] {
            #expect(!PostgresConnection.redacting(text + " password=hunter2").contains("hunter2"), "\(text)")
        }
    }

    @Test("a mistyped scheme, a leading space or capitals: the refusal never shows the URI's password, from any command")
    func mistypedURIs() async {
        for uri in [
            "postgress://admin:WrongPassw0rdXYZ@127.0.0.1:55439/mf", " postgres://admin:WrongPassw0rdXYZ@h/mf",
            "POSTGRES://admin:WrongPassw0rdXYZ@h/mf", "Postgresql://admin:WrongPassw0rdXYZ@h/mf", "pgsql://admin:WrongPassw0rdXYZ@h/mf",
            "postgres:/admin:WrongPassw0rdXYZ@h/mf", "postgresql:admin:WrongPassw0rdXYZ@h",
        ] {
            #expect(PostgresConnection.shownLocation(uri).contains("admin:<redacted>@"), "\(uri)")
            for arguments in [["runs", "--store", uri], ["worker", "--store", uri], ["workers", "--store", uri], ["store", "migrate", "--store", uri]] {
                let refused = await matterflow(arguments)
                #expect(refused.code != 0, "\(arguments)")
                #expect(!(refused.stdout + refused.stderr).contains("WrongPassw0rdXYZ"), "\(arguments): \(refused.stderr)")
            }
        }
        #expect(PostgresConnection.shownLocation("/var/lib/matterflow/journal") == "/var/lib/matterflow/journal", "a directory is shown as it is")
    }

    @Test("libpq's own message about a string it cannot read never shows its password, as written or decoded")
    func libpqMessagesAreScrubbed() throws {
        try #require((try? LibPQ.loaded.get()) != nil, "libpq cannot be opened here")
        for conninfo in [
            "postgres://u:S3cretPW@[::1:5432/db", "postgresql://u:S3cret%zzPW@h/db", "postgresql://u:S3cr%65tPW@[h/db",
            "host=/nowhere password='S3cret PW' port=notaport", "postgres://u:S3cret/PW@nohost:notaport/db",
            "postgres://u:S3cretPW@h:99999/db", "host=/nowhere PASSWORD=S3cretPW", "host='/nowhere password=S3cretPW",
        ] {
            do {
                _ = try PostgresConnection(conninfo)
                Issue.record("connected with \(conninfo)")
            } catch {
                #expect(!error.message.contains("S3cret") && !error.message.contains("S3cr%65t"), "\(error.message)")
                #expect(error.code == .malformedConninfo || error.message.hasPrefix("cannot connect to "), "\(error.message)")
            }
        }
    }

    @Test("scrubbing replaces the whole string with its redacted form, and each password form in what is left")
    func scrubbing() {
        let conninfo = "postgres://u:p%41ss@h/db"
        #expect(
            ConninfoRedaction.scrubbing(#"bad URI "postgres://u:p%41ss@h/db": token p%41ss, decoded pAss"#, about: conninfo)
                == #"bad URI "postgres://u:<redacted>@h/db": token <redacted>, decoded <redacted>"#)
    }
}
