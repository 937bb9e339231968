import { storageEngines } from "../testing/engine-harnesses.ts";
import { credentialRepositoryContract } from "./credential-repository.contract.ts";

for (const harness of storageEngines()) credentialRepositoryContract(harness);
