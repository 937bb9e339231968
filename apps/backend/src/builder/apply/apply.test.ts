import { storageEngines } from "../../testing/engine-harnesses.ts";
import { applyContract } from "./apply.contract.ts";

for (const harness of storageEngines()) applyContract(harness);
