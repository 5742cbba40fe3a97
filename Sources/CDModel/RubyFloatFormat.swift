import CDPredicate
import Foundation

/// Ruby's `Float#to_s`: shortest round-trip digits, fixed notation for decimal exponents
/// from -4 to 16, scientific (`1.0e+20`, `1.0e-05`) outside that range.
enum RubyFloatFormat {
    static func string(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : (value < 0 ? "-Infinity" : "Infinity") }
        let sign = value.sign == .minus ? "-" : ""
        let (digits, pointPosition) = shortestDigits(abs(value))
        if digits.isEmpty { return sign + "0.0" }
        if pointPosition < -3 || pointPosition > 16 {
            let rest = digits.dropFirst()
            let exponent = pointPosition - 1
            let exponentText = (exponent < 0 ? "-" : "+") + (abs(exponent) < 10 ? "0" : "") + String(abs(exponent))
            return sign + String(digits.prefix(1)) + "." + (rest.isEmpty ? "0" : String(rest)) + "e" + exponentText
        }
        if pointPosition <= 0 {
            return sign + "0." + String(repeating: "0", count: -pointPosition) + digits
        }
        if pointPosition >= digits.count {
            return sign + digits + String(repeating: "0", count: pointPosition - digits.count) + ".0"
        }
        let split = digits.index(digits.startIndex, offsetBy: pointPosition)
        return sign + digits[..<split] + "." + digits[split...]
    }

    /// The significant digits of Swift's shortest representation, and the position of the
    /// decimal point relative to them (value = 0.DIGITS × 10^pointPosition).
    private static func shortestDigits(_ value: Double) -> (String, Int) {
        let text = "\(value)"
        let parts = text.split(separator: "e", maxSplits: 1)
        let exponent = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
        let mantissa = parts.first.map(String.init) ?? ""
        let pieces = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let integerPart = pieces.first.map(String.init) ?? ""
        let fractionPart = pieces.count == 2 ? String(pieces[1]) : ""
        var digits = Substring(integerPart + fractionPart)
        var pointPosition = integerPart.count + exponent
        while digits.first == "0" {
            digits = digits.dropFirst()
            pointPosition -= 1
        }
        while digits.last == "0" { digits = digits.dropLast() }
        return (String(digits), pointPosition)
    }
}
