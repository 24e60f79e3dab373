/**
 * engine/runtime: boots the engine and serves its HTTP surfaces.
 *
 * @module
 */
export * from "./engine.ts";
export * from "./health.ts";
export * from "./http_router.ts";
export * from "./process.ts";
export * from "./settings.ts";
