/// The stylesheet and script, embedded in the binary by SwiftPM (`.embedInCode`): the pages
/// load nothing from anywhere else.
enum StaticAssets {
    static let stylesheetPath = "/-/cdstore.css"
    static let scriptPath = "/-/cdstore.js"
    static let names: Set<String> = ["cdstore.css", "cdstore.js"]

    /// The bytes and media type of the asset `name` (one of ``names``).
    static func asset(_ name: String) -> (bytes: [UInt8], contentType: String)? {
        switch name {
        case "cdstore.css": return (PackageResources.cdstore_css, "text/css; charset=utf-8")
        case "cdstore.js": return (PackageResources.cdstore_js, "text/javascript; charset=utf-8")
        default: return nil
        }
    }
}
