-- The ledger is a key/value store: the engine creates its table
-- (sutra_datastore) before running this script. The script seeds the demo
-- accounts, once: it runs again on every boot, so it must be idempotent.
INSERT INTO sutra_datastore (store_name, store_key, value) VALUES
  ('accounts', 'alice', '{"balance":1000.00,"frozen":false}'),
  ('accounts', 'bob', '{"balance":500.00,"frozen":false}'),
  ('accounts', 'carol', '{"balance":250.00,"frozen":true}')
ON CONFLICT (store_name, store_key) DO NOTHING;
