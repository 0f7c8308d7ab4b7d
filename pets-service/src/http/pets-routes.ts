import { sendJson } from '../../../shared/src/json-response';
import { Router } from 'express';
import { methodNotAllowed } from '../../../shared/src/errors';
import type { NewPet } from '../../../shared/src/pets';
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
}

/** HTTP in, HTTP out: every rule lives in the validators and the service. Express 5 passes a rejected handler to the error handlers. */
export function petsRoutes({ service, cursors, publicBaseUrl }: PetsRoutesDeps): Router {
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
    .post(jsonBody('a JSON object describing the pet'), async (req, res) => {
      const pet = await service.createPet(validateNewPet(req.body));
      res.setHeader('Location', `${publicPathPrefix(req)}/pets/${pet.id}`);
      sendJson(res, 201, pet);
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

/** The same listing as the client asked for, one page further. */
function nextPageUrl(base: string, query: ListQuery, cursor: string): string {
  const params = new URLSearchParams();
  if (query.chosen.limit !== undefined) params.set('limit', String(query.chosen.limit));
  if (query.chosen.status !== undefined) params.set('status', query.chosen.status);
  params.set('cursor', cursor);
  return `${base}/pets?${params.toString()}`;
}
