import CDRendering
import CEditLine
import Foundation

/// The interactive line editor, on libedit: emacs keys by default, `~/.editrc` read after
/// cdstore's own bindings (so the user's win), persistent history with Ctrl-R incremental
/// search, and Tab bound to the console's ``CompletionEngine``.
///
/// libedit calls back through C function pointers that cannot capture context, so the one
/// editor of the process is reached through ``active``.
final class LineEditor {
    /// What one read gave.
    enum Input: Equatable {
        case line(String)
        /// Ctrl-C at the prompt; `discardedText` tells whether something was typed.
        case interrupted(discardedText: Bool)
        /// Ctrl-D on an empty line, or the end of the input.
        case end
    }

    private let editLine: OpaquePointer
    private let history: OpaquePointer
    private var event = HistEvent()
    private let historyPath: String?
    private let complete: (String, Int) -> Completion
    private var promptText: UnsafeMutablePointer<CChar>?
    /// Set by the character reader when Ctrl-C ended a read.
    fileprivate var interruptedLine: String?

    /// Weak: the editor's completion closure holds the interpreter and its snapshot, which must
    /// be released when the console ends.
    fileprivate nonisolated(unsafe) static weak var active: LineEditor?

    /// `complete` receives the line and the cursor (in characters). Nil when libedit cannot
    /// start (no memory, no usable terminal): the console then reads plain lines.
    init?(program: String, prompt: String, historyPath: String?, complete: @escaping (String, Int) -> Completion) {
        guard let editLine = cdstore_el_init(program) else { return nil }
        guard let history = history_init() else {
            el_end(editLine)
            return nil
        }
        self.editLine = editLine
        self.history = history
        self.historyPath = historyPath
        self.complete = complete
        promptText = strdup(prompt)
        Self.active = self
        cdstore_history_set_size(history, &event, 1000)
        cdstore_history_set_unique(history, &event)
        if let historyPath { cdstore_history_load(history, &event, historyPath) }
        cdstore_el_set_editor(editLine, "emacs")
        cdstore_el_set_history(editLine, history)
        cdstore_el_set_prompt(editLine, editorPrompt)
        cdstore_el_set_getc(editLine, editorReadCharacter)
        cdstore_el_add_function(editLine, "cdstore-complete", "Complete entity, key, method and file names", editorComplete)
        cdstore_el_bind(editLine, "^I", "cdstore-complete")
        cdstore_el_bind(editLine, "^R", "em-inc-search-prev")
        // ~/.editrc (or $EDITRC) last, so its bindings override the ones above.
        el_source(editLine, nil)
    }

    deinit {
        Self.active = nil
        history_end(history)
        el_end(editLine)
        free(promptText)
    }

    func readLine() -> Input {
        interruptedLine = nil
        var count: Int32 = 0
        guard let text = el_gets(editLine, &count), count > 0 else {
            if let discarded = interruptedLine {
                FileHandle.standardOutput.write(Data("^C\n".utf8))
                return .interrupted(discardedText: !discarded.isEmpty)
            }
            return .end
        }
        var line = String(cString: text)
        while line.last == "\n" || line.last == "\r" { line.removeLast() }
        return .line(line)
    }

    /// Adds `line` to the history and saves the history file at once, so a session killed later
    /// keeps it.
    func remember(_ line: String) {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        cdstore_history_enter(history, &event, line)
        guard let historyPath else { return }
        let directory = (historyPath as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        cdstore_history_save(history, &event, historyPath)
    }

    /// The line being edited and the cursor in characters.
    fileprivate func currentLine() -> (text: String, cursor: Int) {
        guard let info = el_line(editLine)?.pointee, let start = info.buffer else { return ("", 0) }
        let bytes = UnsafeRawPointer(start).assumingMemoryBound(to: UInt8.self)
        let length = info.lastchar.map { $0 - start } ?? 0
        let cursorBytes = info.cursor.map { $0 - start } ?? length
        let text = String(decoding: UnsafeBufferPointer(start: bytes, count: max(0, length)), as: UTF8.self)
        let cursor = String(decoding: UnsafeBufferPointer(start: bytes, count: max(0, min(cursorBytes, length))), as: UTF8.self).count
        return (text, cursor)
    }

    /// Tab: the only candidate, or the candidates' common prefix, replaces the word; when there
    /// is nothing to add, the candidates are listed under the line.
    fileprivate func completeAtCursor() -> UInt8 {
        let (text, cursor) = currentLine()
        let completion = complete(text, cursor)
        guard !completion.candidates.isEmpty else { return UInt8(CC_ERROR) }
        let typed = String(Array(text)[completion.start..<cursor])
        let replacement =
            completion.candidates.count == 1
            ? completion.candidates[0] + completion.terminator : completion.commonPrefix
        if replacement.count > typed.count || (replacement != typed && completion.candidates.count == 1) {
            el_deletestr(editLine, Int32(cursor - completion.start))
            el_insertstr(editLine, replacement)
            return UInt8(CC_REFRESH)
        }
        guard completion.candidates.count > 1 else { return UInt8(CC_REFRESH) }
        let width = (completion.candidates.map(\.count).max() ?? 0) + 2
        let perLine = max(1, Terminal.width(of: STDOUT_FILENO) / width)
        var listing = "\n"
        for (index, candidate) in completion.candidates.enumerated() {
            listing += candidate.padding(toLength: width, withPad: " ", startingAt: 0)
            if (index + 1) % perLine == 0 || index == completion.candidates.count - 1 { listing += "\n" }
        }
        FileHandle.standardOutput.write(Data(listing.utf8))
        return UInt8(CC_REDISPLAY)
    }
}

private let editorPrompt: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>? = { _ in
    LineEditor.active?.promptTextPointer
}

extension LineEditor {
    fileprivate var promptTextPointer: UnsafeMutablePointer<CChar>? { promptText }
}

private let editorComplete: @convention(c) (OpaquePointer?, Int32) -> UInt8 = { _, _ in
    LineEditor.active?.completeAtCursor() ?? UInt8(CC_ERROR)
}

/// Reads one character for libedit, decoding UTF-8. A SIGINT (or a Ctrl-C byte, should the
/// terminal deliver one) ends the read with -1, which makes `el_gets` return at once.
private let editorReadCharacter: @convention(c) (OpaquePointer?, UnsafeMutablePointer<wchar_t>?) -> Int32 = { _, character in
    var bytes: [UInt8] = []
    while true {
        var byte: UInt8 = 0
        let count = read(STDIN_FILENO, &byte, 1)
        if count == 1 {
            if byte == 3 && bytes.isEmpty {
                LineEditor.active?.interruptedLine = LineEditor.active?.currentLine().text ?? ""
                return -1
            }
            bytes.append(byte)
            let lead = bytes[0]
            let length = lead < 0xC0 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            guard bytes.count >= length else { continue }
            let scalar = String(decoding: bytes, as: UTF8.self).unicodeScalars.first?.value ?? UInt32(bytes[0])
            character?.pointee = wchar_t(bitPattern: scalar)
            return 1
        }
        if count == 0 { return 0 }
        guard errno == EINTR else { return -1 }
        if ConsoleSignals.interruptPending {
            LineEditor.active?.interruptedLine = LineEditor.active?.currentLine().text ?? ""
            return -1
        }
    }
}
