import { storageEngines } from "../../testing/engine-harnesses.ts";
import { builderStoreContract } from "./builder-store.contract.ts";

for (const harness of storageEngines()) builderStoreContract(harness);
