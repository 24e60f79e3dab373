/**
 * ISO-8601 durations for configuration values (`PT30S`, `P7D`, `PT0.5S`).
 * Only exact units are accepted: years and months have no fixed length, so
 * a key that means "this much time" refuses them.
 *
 * @module
 */

const DURATION = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,3})?)S)?)?$/;

/**
 * Parses an exact ISO-8601 duration into milliseconds; `undefined` when the
 * text is not one (including calendar units Y and M-before-T).
 */
export function parseDurationMillis(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (!m || text.trim() === "P" || text.trim().endsWith("T")) return undefined;
  const [, w, d, h, min, s] = m;
  if (
    w === undefined && d === undefined && h === undefined && min === undefined && s === undefined
  ) {
    return undefined;
  }
  const days = Number(w ?? 0) * 7 + Number(d ?? 0);
  return Math.round(
    ((days * 24 + Number(h ?? 0)) * 60 + Number(min ?? 0)) * 60_000 + Number(s ?? 0) * 1000,
  );
}

/** Renders milliseconds as a canonical ISO-8601 duration (`PT1M30S`, `P2D`, `PT0S`). */
export function formatDurationMillis(millis: number): string {
  let rest = Math.round(millis);
  const days = Math.floor(rest / 86_400_000);
  rest -= days * 86_400_000;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = rest / 1000;
  let time = "";
  if (hours) time += `${hours}H`;
  if (minutes) time += `${minutes}M`;
  if (seconds) time += `${seconds}S`;
  if (!days && !time) return "PT0S";
  return `P${days ? `${days}D` : ""}${time ? `T${time}` : ""}`;
}
