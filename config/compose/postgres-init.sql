-- The gateway's application role: it logs in, and the journal's migrations (run by the owner,
-- JOURNAL_MIGRATION_URL) grant it INSERT and SELECT on the journal, nothing more.
CREATE ROLE pmgw_app LOGIN;
