// The guided first game. Contract with game.js and scoring.js (the guide's owner fills the rest):
//   Guide.forGame(gameId, {box, askHint}) -> Guide | null   (null: this game is not guided)
//   guide.update(msg, {selected, action, hint})              after every render of the table
//   guide.explainScoring(scoring, step, seat) -> string|null  a line under each scoring step

export class Guide {
  static forGame() {
    return null;
  }

  update() {}

  explainScoring() {
    return null;
  }
}
