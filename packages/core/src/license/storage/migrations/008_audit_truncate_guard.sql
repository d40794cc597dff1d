-- 004's row triggers refuse UPDATE and DELETE of audit events and anchors, but row triggers never fire
-- on TRUNCATE, so one statement could still empty the log. These statement triggers refuse it for the
-- events, the anchors and the heads (emptying the heads would restart every chain at seq 1, over the
-- events already stored). A TRUNCATE … CASCADE from license_vendors reaches these tables and is refused
-- too. Test databases lift the triggers for their resets (core/test/license/license-test-database.ts).
CREATE TRIGGER license_audit_events_no_truncate
  BEFORE TRUNCATE ON license_audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION license_refuse_audit_change();

CREATE TRIGGER license_audit_anchors_no_truncate
  BEFORE TRUNCATE ON license_audit_anchors
  FOR EACH STATEMENT EXECUTE FUNCTION license_refuse_audit_change();

CREATE TRIGGER license_audit_heads_no_truncate
  BEFORE TRUNCATE ON license_audit_heads
  FOR EACH STATEMENT EXECUTE FUNCTION license_refuse_audit_change();
