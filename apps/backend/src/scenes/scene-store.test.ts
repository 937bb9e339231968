import { storageEngines } from "../testing/engine-harnesses.ts";
import { sceneStoreContract } from "./scene-store.contract.ts";

for (const harness of storageEngines()) sceneStoreContract(harness);
