import { Ajv, type ValidateFunction } from "ajv";
import { NodeFailure, messageOf } from "@weft/types";

const ajv = new Ajv({ allErrors: true, strict: false });
/** Compiled validators by schema text: a node run again with the same schema does not compile it again. */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 100;

/** A validator for `schema`, or a NodeFailure INVALID_CONFIG saying what is wrong with the schema. */
export function schemaValidator(schema: unknown, field: string): ValidateFunction {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new NodeFailure("INVALID_CONFIG", `"${field}" must be a JSON Schema object, e.g. {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}.`, { field });
  }
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    try {
      validate = ajv.compile(schema);
    } catch (error) {
      throw new NodeFailure("INVALID_CONFIG", `"${field}" is not a valid JSON Schema: ${messageOf(error)}.`, { field });
    }
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, validate);
  }
  return validate;
}

/** The validator's last errors as one readable line: `/age: must be integer; (root): must have required property 'name'`. */
export function describeSchemaErrors(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((e) => `${e.instancePath === "" ? "(root)" : e.instancePath}: ${e.message ?? "is invalid"}`).join("; ");
}
