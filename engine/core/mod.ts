/**
 * engine/core: diagnostics and their catalogue, configuration, clock, ids,
 * logging, and the SPI registries every other module plugs into.
 *
 * @module
 */
export * from "./diagnostic.ts";
export * from "./codec.ts";
export * from "./codes.ts";
export * from "./config.ts";
export * from "./clock.ts";
export * from "./duration.ts";
export * from "./errors.ts";
export * from "./ids.ts";
export * from "./log.ts";
export * from "./redactor.ts";
export * from "./registry.ts";
export * from "./secrets.ts";
export * from "./validator.ts";
export * from "./version.ts";
