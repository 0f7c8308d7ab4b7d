import { sendJson, sendJsonText } from '../../../shared/src/json-response';
import { Router, type Request, type Response } from 'express';
import { methodNotAllowed } from '../../../shared/src/errors';
import type { InternalClaims } from '../../../shared/src/internal-token';
import type { NewPet, Pet } from '../../../shared/src/pets';
import { fingerprintOf } from '../idempotency/fingerprint';
import { idempotencyKeyOf } from '../idempotency/idempotency-key';
import { ownerOf, type StoredAnswer } from '../idempotency/records';
import { createValidator, parameterSchemaOf, schemaOf } from '../../../shared/src/validation';
import type { PetService } from '../pets/pet-service';
import type { CursorCodec } from './cursor';
import { integerOrText } from './integer-text';
import { jsonBody } from '../../../shared/src/json-body';
import { parseListQuery, type ListQuery } from './list-query';
import { linkBase, publicPathPrefix } from './public-address';

const validateNewPet = createValidator<Required<NewPet>>(schemaOf('NewPet'), 'invalid_body', 'body');
const validatePetId = createValidator<number>(parameterSchemaOf('petId'), 'invalid_parameter', 'petId');

export interface PetsRoutesDeps {
  readonly service: PetService;
  readonly cursors: CursorCodec;
  /** `PUBLIC_BASE_URL`, when set. */
  readonly publicBaseUrl?: string;
  /** `BODY_TIMEOUT_MS`. */
  readonly bodyTimeoutMs: number;
}

/** HTTP in, HTTP out: every rule lives in the validators and the service. Express 5 passes a rejected handler to the error handlers. */
export function petsRoutes({ service, cursors, publicBaseUrl, bodyTimeoutMs }: PetsRoutesDeps): Router {
  const router = Router();

  router
    .route('/pets')
    .get(async (req, res) => {
      const query = parseListQuery(req, cursors);
      const page = await service.listPets(query);
      const last = page.pets.at(-1);
      if (page.hasMore && last) res.setHeader('Link', `<${nextPageUrl(linkBase(req, publicBaseUrl), query, cursors.encode(last.id))}>; rel="next"`);
      sendJson(res, 200, page.pets);
    })
    .post(checkIdempotencyKey, jsonBody({ timeoutMs: bodyTimeoutMs, expected: 'a JSON object describing the pet' }), async (req, res) => {
      const key = res.locals.idempotencyKey as string | undefined;
      if (key === undefined) {
        const pet = await service.createPet(validateNewPet(req.body));
        res.setHeader('Location', `${publicPathPrefix(req)}/pets/${pet.id}`);
        sendJson(res, 201, pet);
        return;
      }
      // The value as sent, before validation fills in defaults: "the same body" is the same JSON value.
      const fingerprint = fingerprintOf(req.body);
      const { answer, replayed } = await service.createPetOnce(validateNewPet(req.body), {
        owner: ownerOf(res.locals.caller as InternalClaims),
        key,
        fingerprint,
        answerFor: (pet) => createdAnswer(req, pet),
      });
      res.setHeader('Location', answer.location);
      if (replayed) res.setHeader('Idempotent-Replayed', 'true');
      sendJsonText(res, answer.status, answer.body);
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/pets/:petId')
    .get(async (req, res) => {
      sendJson(res, 200, await service.getPet(validatePetId(integerOrText(String(req.params.petId)))));
    })
    .all(methodNotAllowed(['GET']));

  return router;
}

/** A malformed Idempotency-Key is refused before the body is read, and nothing is stored. */
function checkIdempotencyKey(req: Request, res: Response, next: (error?: unknown) => void): void {
  res.locals.idempotencyKey = idempotencyKeyOf(req.headers);
  next();
}

/** The 201 of a create, as stored for replays: the same bytes `sendJson` would send. */
function createdAnswer(req: Request, pet: Pet): StoredAnswer {
  return { status: 201, body: JSON.stringify(pet), location: `${publicPathPrefix(req)}/pets/${pet.id}` };
}

/** The same listing as the client asked for, one page further. */
function nextPageUrl(base: string, query: ListQuery, cursor: string): string {
  const params = new URLSearchParams();
  if (query.chosen.limit !== undefined) params.set('limit', String(query.chosen.limit));
  if (query.chosen.status !== undefined) params.set('status', query.chosen.status);
  params.set('cursor', cursor);
  return `${base}/pets?${params.toString()}`;
}
