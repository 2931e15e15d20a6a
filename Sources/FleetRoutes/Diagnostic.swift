/// The one format of every file diagnostic (route files, fleet files), as compilers print them:
/// `FILE:LINE:COLUMN: error: PROBLEM; expected WHAT`, leaving out what is unknown.
package enum Diagnostic {
    package static func text(file: String, line: Int?, column: Int?, problem: String, expected: String?) -> String {
        var text = file
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        text += ": error: " + problem
        if let expected, !expected.isEmpty { text += "; expected " + expected }
        return text
    }
}
