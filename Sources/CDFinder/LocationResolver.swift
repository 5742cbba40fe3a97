import CDArchive
import Foundation

/// Tells which simulator device and which app or group a folder belongs to, from the folders
/// above it and the property lists Xcode and the container manager leave there.
///
/// Layouts recognised:
/// - CoreSimulator: `Devices/<UDID>/device.plist` (keys `name`, `runtime`), app containers
///   `…/data/Containers/Data/Application/<UUID>/`, app groups `…/Containers/Shared/AppGroup/<UUID>/`
///   and extensions `…/Containers/Data/PluginKitPlugin/<UUID>/`, each with
///   `.com.apple.mobile_container_manager.metadata.plist` (key `MCMMetadataIdentifier`).
/// - Old simulators: `iPhone Simulator/<version>/Applications/<UUID>/<Name>.app/Info.plist`
///   (`CFBundleIdentifier`).
/// - macOS: `~/Library/Containers/<bundle id>/Data/…` and `~/Library/Group Containers/<group id>/…`.
///
/// Every answer is cached by folder: thousands of stores share a handful of devices and
/// containers, and `find` probes them in parallel, hence the lock.
final class LocationResolver: @unchecked Sendable {
    private let lock = NSLock()
    private var cache: [String: StoreLocation] = [:]

    static let containerMetadataNames = [
        ".com.apple.mobile_container_manager.metadata.plist",
        ".com.apple.containermanagerd.metadata.plist",
    ]

    /// The location of a store in `folder` (an absolute, standardized path).
    func location(ofFolder folder: String) -> StoreLocation {
        lock.lock()
        if let known = cache[folder] {
            lock.unlock()
            return known
        }
        lock.unlock()
        var result = StoreLocation()
        let parent = (folder as NSString).deletingLastPathComponent
        if parent != folder {
            result = location(ofFolder: parent)
        }
        apply(folder: folder, to: &result)
        lock.lock()
        cache[folder] = result
        lock.unlock()
        return result
    }

    /// What `folder` itself adds to the location inherited from its parent.
    private func apply(folder: String, to location: inout StoreLocation) {
        let name = (folder as NSString).lastPathComponent
        let parent = (folder as NSString).deletingLastPathComponent
        let parentName = (parent as NSString).lastPathComponent
        let grandparentName = ((parent as NSString).deletingLastPathComponent as NSString).lastPathComponent
        let manager = FileManager.default

        if parentName == "Devices", let device = Self.readPlist(folder + "/device.plist") {
            location.device = device["name"]?.stringValue
            location.runtime = device["runtime"]?.stringValue.map(Self.runtimeName)
            location.deviceUDID = device["UDID"]?.stringValue ?? name
        }
        if location.bundleID == nil {
            for metadataName in Self.containerMetadataNames where manager.fileExists(atPath: folder + "/" + metadataName) {
                if let identifier = Self.readPlist(folder + "/" + metadataName)?["MCMMetadataIdentifier"]?.stringValue {
                    location.bundleID = identifier
                    location.container = Self.containerKind(parentName: parentName)
                    return
                }
            }
        }
        // Old simulators: "iPhone Simulator/<version>/Applications/<UUID>".
        if parentName == "Applications", grandparentName.first?.isNumber == true,
            ((parent as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent.hasSuffix("iPhone Simulator")
        {
            location.runtime = location.runtime ?? "iOS " + grandparentName
            if location.bundleID == nil,
                let app = (try? manager.contentsOfDirectory(atPath: folder))?.sorted().first(where: { $0.hasSuffix(".app") }),
                let identifier = Self.readPlist(folder + "/" + app + "/Info.plist")?["CFBundleIdentifier"]?.stringValue
            {
                location.bundleID = identifier
                location.container = .app
            }
        }
        guard location.bundleID == nil, location.device == nil else { return }
        // macOS sandbox containers name their folder after the bundle or group ID.
        if parentName == "Containers", grandparentName == "Library", manager.fileExists(atPath: folder + "/Data") {
            location.bundleID = name
            location.container = .app
        } else if parentName == "Group Containers" {
            location.bundleID = name
            location.container = .appGroup
        }
    }

    private static func containerKind(parentName: String) -> ContainerKind {
        switch parentName {
        case "AppGroup": return .appGroup
        case "PluginKitPlugin": return .appExtension
        default: return .app
        }
    }

    /// `com.apple.CoreSimulator.SimRuntime.iOS-17-2` → `iOS 17.2`.
    static func runtimeName(_ identifier: String) -> String {
        let last = identifier.split(separator: ".").last.map(String.init) ?? identifier
        let parts = last.split(separator: "-").map(String.init)
        guard parts.count >= 2 else { return identifier }
        return parts[0] + " " + parts.dropFirst().joined(separator: ".")
    }

    /// A binary or XML property list, or nil when it is missing or unreadable.
    static func readPlist(_ path: String) -> PropertyListValue? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? PropertyList.decode(data)
    }
}
