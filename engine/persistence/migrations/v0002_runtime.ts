/**
 * Version 2: the durable runtime's tables — deployments, instances and what
 * an instance is parked on (waits, aliases), intake dedup (inbox), outbound
 * deliveries (outbox), the audit journal and incidents. Every table carries
 * the tenant so row-level policies can isolate tenants on a shared server.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

const SQL = `
create table deployments (
  tenant text not null default 'default',
  deployment_id text not null,
  slot text not null,
  labels jsonb not null,
  manifest jsonb not null,
  archive bytea not null,
  status text not null check (status in ('active', 'draining', 'retired', 'failed')),
  failure_code text,
  failure_detail text,
  created_at timestamptz not null default now(),
  activated_at timestamptz,
  drained_at timestamptz,
  retired_at timestamptz,
  primary key (tenant, deployment_id)
);
create unique index deployments_one_active_per_slot on deployments (tenant, slot)
  where status = 'active';

create table instances (
  tenant text not null default 'default',
  instance_id text not null,
  deployment_id text not null,
  process_id text not null,
  -- the channel that started it, for per-channel admission caps
  channel text,
  status text not null
    check (status in ('RUNNING', 'SUSPENDED', 'COMPLETED', 'TERMINATED', 'FAILED')),
  snapshot bytea not null,
  failure_code text,
  failure_detail text,
  failure_node text,
  owner text,
  claimed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  ended_at timestamptz,
  primary key (tenant, instance_id)
);
create index instances_by_deployment on instances (tenant, deployment_id, status);
create index instances_live_by_channel on instances (tenant, channel)
  where status in ('RUNNING', 'SUSPENDED');
create index instances_claimed on instances (claimed_at) where owner is not null;
create index instances_ended on instances (ended_at) where ended_at is not null;

create table waits (
  tenant text not null default 'default',
  wait_id text not null,
  instance_id text not null,
  kind text not null check (kind in ('message', 'timer', 'external-task', 'signal')),
  node_id text not null,
  channel text,
  message_type text,
  due_at timestamptz,
  detail jsonb,
  created_at timestamptz not null default now(),
  primary key (tenant, wait_id)
);
create index waits_by_instance on waits (tenant, instance_id);
create index waits_due on waits (due_at) where kind = 'timer';
create index waits_by_node on waits (tenant, node_id, instance_id) where kind = 'message';

create table aliases (
  tenant text not null default 'default',
  name text not null,
  value text not null,
  instance_id text not null,
  is_unique boolean not null,
  created_at timestamptz not null default now(),
  retired_at timestamptz
);
create unique index aliases_live on aliases (tenant, name, value)
  where retired_at is null and is_unique;
create index aliases_lookup on aliases (tenant, name, value) where retired_at is null;
create index aliases_by_instance on aliases (tenant, instance_id);

create table inbox (
  tenant text not null default 'default',
  channel text not null,
  event_id text not null,
  instance_id text,
  -- on-persist captures keep the message until a lane has run it
  state text not null default 'done' check (state in ('pending', 'done')),
  body bytea,
  content_type text,
  headers jsonb,
  attempts integer not null default 0,
  received_at timestamptz not null default now(),
  primary key (tenant, channel, event_id)
);
create index inbox_pending on inbox (received_at) where state = 'pending';

create table outbox (
  tenant text not null default 'default',
  outbox_id text not null,
  instance_id text,
  deployment_id text,
  destination text not null,
  headers jsonb not null,
  body bytea not null,
  content_type text,
  idempotency_key text not null,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  claimed_by text,
  claimed_until timestamptz,
  last_error text,
  poisoned_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (tenant, outbox_id)
);
create index outbox_ready on outbox (next_attempt_at) where poisoned_at is null;
create index outbox_by_deployment on outbox (tenant, deployment_id) where poisoned_at is null;

create table audit_events (
  tenant text not null default 'default',
  instance_id text not null,
  seq integer not null,
  event_type text not null,
  node_id text,
  at timestamptz not null,
  data jsonb,
  primary key (tenant, instance_id, seq)
);

create table incidents (
  tenant text not null default 'default',
  incident_id text not null,
  instance_id text,
  deployment_id text,
  code text not null,
  detail text,
  created_at timestamptz not null default now(),
  resolved_at timestamptz,
  primary key (tenant, incident_id)
);
`;

/** The runtime schema migration. */
export const RUNTIME_MIGRATION: Migration = { version: 2, name: "runtime", sql: SQL };
