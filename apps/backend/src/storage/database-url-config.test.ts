import { describe, expect, it } from "vitest";
import { ConfigError, configFromEnv } from "../config.ts";

describe("WEFT_DATABASE_URL", () => {
  it("selects PostgreSQL when it is a postgres:// or postgresql:// URL, SQLite when unset or empty", () => {
    expect(configFromEnv({}).databaseUrl).toBeUndefined();
    expect(configFromEnv({ WEFT_DATABASE_URL: "" }).databaseUrl).toBeUndefined();
    expect(configFromEnv({ WEFT_DATABASE_URL: "postgres://weft@db:5432/weft" }).databaseUrl).toBe("postgres://weft@db:5432/weft");
    expect(configFromEnv({ WEFT_DATABASE_URL: "postgresql://weft:pw@db/weft" }).databaseUrl).toBe("postgresql://weft:pw@db/weft");
  });

  it("refuses another kind of URL without repeating it (it may hold a password)", () => {
    let error: unknown;
    try {
      configFromEnv({ WEFT_DATABASE_URL: "mysql://root:hunter2-secret@db/weft" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain("WEFT_DATABASE_URL");
    expect((error as ConfigError).message).not.toContain("hunter2-secret");
  });
});
