/// Fetching from a store: the NSPredicate language, CDQ-style query chains, SQL generation in
/// Core Data's style (reference/sqldebug.md) and the `CoreData: sql:` trace.
public enum CDFetch {}
